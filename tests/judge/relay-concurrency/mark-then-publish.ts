// expect: wrong
// kind: relay-mark-before-publish
// why: the rows are marked published in their own statement before they are published, so a relay that dies in between loses those messages for good.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const { rows } = await env.db.query<Row>(
    `UPDATE outbox SET published_at = now()
     WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED)
     RETURNING id, topic, payload`,
  );
  for (const row of rows) await env.queue.publish(row.topic, row.payload);
  return rows;
}
