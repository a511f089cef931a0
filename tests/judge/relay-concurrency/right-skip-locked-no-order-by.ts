// expect: right
// kind: row-lock
// why: the batch is locked FOR UPDATE SKIP LOCKED with a LIMIT but no ORDER BY inside the transaction that publishes and marks it; PostgreSQL may hand out any two unpublished rows, but every row it returns stays locked until COMMIT and the other relay skips it, so each row goes out once (order across rows was never promised).
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
