// expect: wrong
// kind: relay-no-lock
// why: the pass tries pg_try_advisory_xact_lock and reads its answer, but only to size its batch: a relay that finds the lock taken still reads one unlocked row "to help out"; on PostgreSQL its transaction overlaps the lock holder's, both read the same unpublished first row, and both publish it.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const lock = await client.query<{ got: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('outbox-relay')) AS got`);
    const limit = lock.rows[0]?.got ? 2 : 1;
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
    client.release();
  }
}
