// expect: wrong
// kind: relay-no-lock
// why: the rows are marked before they are published, by an UPDATE guarded with published_at IS NULL, but the relay publishes the rows its unlocked SELECT read rather than the ones the UPDATE took: a second relay that read the same rows marks none of them and publishes them all again.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    if (rows.length === 0) return rows;
    await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1) AND published_at IS NULL', [rows.map((r) => Number(r.id))]);
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
