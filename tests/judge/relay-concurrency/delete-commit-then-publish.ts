// expect: wrong
// kind: relay-mark-before-publish
// why: the rows are taken with DELETE … RETURNING and the delete is committed before they are published; two relays never share a row, but a relay that dies between its COMMIT and its publish has removed rows nobody will ever publish.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const rows = await withTransaction(env.db, async (tx) => {
    const taken = await tx.query<Row>(
      `DELETE FROM outbox WHERE id IN (
         SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED)
       RETURNING id, topic, payload`,
    );
    return taken.rows;
  });
  for (const row of [...rows].sort((a, b) => Number(a.id) - Number(b.id))) await env.queue.publish(row.topic, row.payload);
  return rows;
}
