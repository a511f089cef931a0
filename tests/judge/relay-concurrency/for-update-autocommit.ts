// expect: wrong
// kind: relay-no-lock
// why: FOR UPDATE SKIP LOCKED outside a transaction releases its locks when the SELECT ends, so the other relay reads the same rows before they are marked.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const { rows } = await env.db.query<Row>(
    'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
  );
  for (const row of rows) await env.queue.publish(row.topic, row.payload);
  if (rows.length) await env.db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
  return rows;
}
