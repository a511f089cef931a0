// expect: wrong
// kind: relay-mark-before-publish
// why: the relay takes its batch with a DELETE … RETURNING that commits on its own before it publishes, so a crash or a failed publish after the delete loses those messages for good.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const { rows } = await env.db.query<{ id: number; topic: string; payload: unknown }>(
    `DELETE FROM outbox WHERE id IN (
       SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED
     ) RETURNING id, topic, payload`,
  );
  rows.sort((a, b) => a.id - b.id);
  for (const row of rows) await env.queue.publish(row.topic, row.payload);
  return rows;
}
