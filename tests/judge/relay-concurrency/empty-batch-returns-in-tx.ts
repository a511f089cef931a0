// expect: wrong
// kind: lock-leak
// why: a pass that finds nothing to publish returns from inside its BEGIN with only a release in the finally, so on pg.Pool each idle poll leaves a connection idle in transaction for good, and the pool runs dry.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    if (rows.length === 0) return rows;
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
