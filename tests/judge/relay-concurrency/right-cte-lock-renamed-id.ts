// expect: right
// kind: cte
// why: the WITH query locks up to two unpublished rows FOR UPDATE SKIP LOCKED under the column name outbox_id, and the outbox read joins them on o.id = l.outbox_id, so it returns exactly the rows this transaction locked until COMMIT.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `WITH locked AS (
         SELECT id AS outbox_id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED
       )
       SELECT o.id, o.topic, o.payload FROM outbox o JOIN locked l ON o.id = l.outbox_id
       ORDER BY o.id`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
