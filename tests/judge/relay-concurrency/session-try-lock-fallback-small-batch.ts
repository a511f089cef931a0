// expect: wrong
// kind: relay-no-lock
// why: the relay reads the session try-lock's answer but does not obey it: when the other relay holds the lock it still runs a pass "to help out", only with a batch of one, reading unlocked rows; on PostgreSQL its transaction overlaps the lock holder's, both read the same unpublished first row and both publish it.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  let leader = false;
  try {
    const lock = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS got', ['outbox-relay']);
    leader = lock.rows[0]?.got === true;
    // The leader drains in batches of two; a follower still helps, one row at a time.
    const limit = leader ? 2 : 1;
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1',
      [limit],
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    }
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    if (leader) await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['outbox-relay']).catch(() => undefined);
    client.release();
  }
}
