// expect: right
// kind: row-lock
// why: candidate ids are read without a lock, but what is published comes from a second read that re-checks published_at IS NULL with FOR UPDATE SKIP LOCKED inside the transaction, so each published row is locked until COMMIT and the other relay skips it.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const candidates = await tx.query<{ id: number }>('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    if (!candidates.rows.length) return [];
    const { rows } = await tx.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE id = ANY($1) AND published_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED',
      [candidates.rows.map((c) => Number(c.id))],
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
