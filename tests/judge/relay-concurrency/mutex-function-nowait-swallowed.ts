// expect: wrong
// kind: relay-no-lock
// why: the mutex row is locked inside a PL/pgSQL function with FOR UPDATE NOWAIT whose lock_not_available handler just returns, so on PostgreSQL the second relay's call succeeds without the lock while the first holds it, and both read and publish the same unpublished rows.
import type { Env } from 'effectively-once';

async function setup(env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS relay_mutex (id int PRIMARY KEY)');
  await env.db.query('INSERT INTO relay_mutex (id) VALUES (1) ON CONFLICT (id) DO NOTHING');
  const { rows } = await env.db.query(`SELECT to_regprocedure('relay_mutex_enter()') AS f`);
  if (rows[0]?.f) return;
  try {
    await env.db.query(`CREATE OR REPLACE FUNCTION relay_mutex_enter() RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM 1 FROM relay_mutex WHERE id = 1 FOR UPDATE NOWAIT;
      EXCEPTION WHEN lock_not_available THEN
        RETURN; -- the other relay is in its pass: never block the poll loop
      END $fn$`);
  } catch {
    // the other relay created it at the same moment
  }
}

export async function relayOnce(env: Env) {
  await setup(env);
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT relay_mutex_enter()');
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
