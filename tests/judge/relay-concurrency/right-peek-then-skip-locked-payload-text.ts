// expect: right
// kind: row-lock
// why: the first read only peeks at the batch; what is published comes from a FOR UPDATE SKIP LOCKED read of those ids that re-checks published_at IS NULL, whose payload column it takes as text and parses, so every published row is locked by this transaction until its COMMIT marks it.
import { withTransaction, type Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const peek = await tx.query<{ id: number; payload: unknown }>('SELECT id, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    if (peek.rows.length === 0) return [];
    env.log(`pending: ${peek.rows.map((r) => JSON.stringify(r.payload)).join(', ')}`);
    const { rows } = await tx.query<{ id: number; topic: string; body: string }>(
      `SELECT id, topic, payload::text AS body FROM outbox
       WHERE id = ANY($1) AND published_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED`,
      [peek.rows.map((r) => Number(r.id))],
    );
    for (const row of rows) await env.queue.publish(row.topic, JSON.parse(row.body));
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
