// expect: right
// kind: row-lock
// why: each pass first locks the one row of a relay_mutex table FOR UPDATE, so the two relays' transactions take turns; the outbox read that follows is a new statement whose READ COMMITTED snapshot is taken after the other relay committed its marks, so no row is read unpublished by both.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS relay_mutex (id int PRIMARY KEY)');
  await env.db.query('INSERT INTO relay_mutex (id) VALUES (1) ON CONFLICT (id) DO NOTHING');
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // One relay at a time: the mutex row stays locked until COMMIT.
    await client.query('SELECT id FROM relay_mutex WHERE id = 1 FOR UPDATE');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    }
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
