// expect: right
// kind: cte
// why: each candidate row is kept only if a correlated EXISTS locks that same row (l.id = o.id) FOR UPDATE SKIP LOCKED with published_at IS NULL re-checked on its newest version, a per-row try-lock: a row another relay holds or has just published is skipped, so every row published is locked by this transaction until COMMIT.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT o.id, o.topic, o.payload FROM outbox o
       WHERE o.published_at IS NULL
         AND EXISTS (SELECT 1 FROM outbox l WHERE l.id = o.id AND l.published_at IS NULL FOR UPDATE SKIP LOCKED)
       ORDER BY o.id LIMIT 2`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
