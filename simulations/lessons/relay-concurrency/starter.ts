import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const { rows } = await env.db.query<{ id: number; topic: string; payload: unknown }>(
    'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
  );
  for (const row of rows) await env.queue.publish(row.topic, row.payload);
  if (rows.length) {
    await env.db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
  }
  return rows;
}
