// expect: right
// kind: row-lock
// why: each pass first stamps the one row of a relay_state table (UPDATE … SET last_pass_at = now() WHERE name = 'outbox'), and the row lock that UPDATE takes lasts until COMMIT, so the two relays' transactions take turns like with FOR UPDATE; the outbox read that follows takes its READ COMMITTED snapshot after the other relay committed its marks, so no row is published by both.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS relay_state (name text PRIMARY KEY, last_pass_at timestamptz)');
  await env.db.query(`INSERT INTO relay_state (name) VALUES ('outbox') ON CONFLICT (name) DO NOTHING`);
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // One relay at a time: the stamped row stays locked until COMMIT.
    await client.query(`UPDATE relay_state SET last_pass_at = now() WHERE name = 'outbox'`);
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
