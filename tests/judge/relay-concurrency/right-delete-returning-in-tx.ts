// expect: right
// kind: row-lock
// why: inside one transaction the relay deletes the rows it takes (picked FOR UPDATE SKIP LOCKED) and publishes what the DELETE returned; the other relay skips the locked rows, and a crash before COMMIT brings the rows back for the next pass.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `DELETE FROM outbox WHERE id IN (
         SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED
       ) RETURNING id, topic, payload`,
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
