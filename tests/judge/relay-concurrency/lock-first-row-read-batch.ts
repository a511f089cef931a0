// expect: wrong
// kind: relay-no-lock
// why: it locks only the first unpublished row (FOR UPDATE SKIP LOCKED, LIMIT 1) as a gate and then reads the batch without a lock, so a second relay skips to the next row, locks that one and reads the same unlocked batch: both publish the rows neither locked.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const gate = await tx.query('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED');
    if (gate.rows.length === 0) return [];
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
