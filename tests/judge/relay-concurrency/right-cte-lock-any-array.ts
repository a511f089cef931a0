// expect: right
// kind: cte
// why: the WITH query locks up to two unpublished rows FOR UPDATE SKIP LOCKED, and the outbox read takes only ids = ANY(ARRAY(SELECT id FROM locked)), exactly the rows this transaction locked until COMMIT.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `WITH locked AS (
         SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED
       )
       SELECT o.id, o.topic, o.payload FROM outbox o
       WHERE o.id = ANY(ARRAY(SELECT id FROM locked))
       ORDER BY o.id`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
