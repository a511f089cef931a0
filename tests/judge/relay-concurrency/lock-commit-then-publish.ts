// expect: wrong
// kind: relay-no-lock
// why: the rows are locked in a transaction that commits before the publish, so the locks are gone by the time it publishes and the other relay takes the same rows.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const rows = await withTransaction(env.db, async (tx) =>
    (await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED')).rows,
  );
  for (const row of rows) await env.queue.publish(row.topic, row.payload);
  if (rows.length) await env.db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
  return rows;
}
