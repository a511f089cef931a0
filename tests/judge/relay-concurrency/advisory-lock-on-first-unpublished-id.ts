// expect: wrong
// kind: relay-no-lock
// why: the advisory lock is keyed on the lowest unpublished id as this relay saw it before locking; once relay-1 has committed its batch, its next pass keys on the next id while relay-2, which read the older minimum, holds the old key and is publishing that same next batch, so on PostgreSQL both publish it.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // Two relays that would start on the same batch start on the same first row: lock on its id.
    await client.query('SELECT pg_advisory_xact_lock((SELECT min(id) FROM outbox WHERE published_at IS NULL))');
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
