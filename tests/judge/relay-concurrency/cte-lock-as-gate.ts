// expect: wrong
// kind: relay-no-lock
// why: the CTE locks a batch FOR UPDATE SKIP LOCKED, but the query only asks whether it found any and then returns the first unpublished rows from the outbox unlocked; the second relay locks rows 3 and 4 and publishes rows 1 and 2, which the first relay is publishing too.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `WITH locked AS (
         SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED
       )
       SELECT o.id, o.topic, o.payload FROM outbox o
       WHERE o.published_at IS NULL AND EXISTS (SELECT 1 FROM locked)
       ORDER BY o.id LIMIT 2`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    return rows;
  });
}
