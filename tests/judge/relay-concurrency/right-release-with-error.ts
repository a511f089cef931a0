// expect: right
// kind: row-lock
// why: the batch is read FOR UPDATE SKIP LOCKED, published and marked in one transaction; an empty pass commits before it returns, and a failed pass rolls back and hands the client back with the error so the pool discards it.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    if (rows.length === 0) {
      await client.query('COMMIT');
      client.release();
      return rows;
    }
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    await client.query('COMMIT');
    client.release();
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
}
