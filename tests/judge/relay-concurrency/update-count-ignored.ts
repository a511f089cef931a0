// expect: wrong
// kind: relay-no-lock
// why: the UPDATE … WHERE published_at IS NULL would tell which rows this relay won, but it runs after the publish and its row count is ignored, so both relays publish the rows they both read.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1) AND published_at IS NULL', [rows.map((r) => Number(r.id))]);
    }
    return rows;
  });
}
