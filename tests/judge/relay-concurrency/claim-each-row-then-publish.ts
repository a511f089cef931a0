// expect: wrong
// kind: relay-mark-before-publish
// why: each row is won with a compare-and-set UPDATE (row count checked) that commits on its own before the publish, so a relay crash between the two loses that row's message.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const { rows } = await env.db.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
  const published: Row[] = [];
  for (const row of rows) {
    const won = await env.db.query('UPDATE outbox SET published_at = now() WHERE id = $1 AND published_at IS NULL RETURNING id', [Number(row.id)]);
    if (won.rows.length !== 1) continue;
    await env.queue.publish(row.topic, row.payload);
    published.push(row);
  }
  return published;
}
