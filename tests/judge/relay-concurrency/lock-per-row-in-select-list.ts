// expect: wrong
// kind: relay-no-lock
// why: the per-row advisory lock is called in the select list of the very read that re-checks published_at IS NULL; PostgreSQL filters the row with the statement's snapshot, taken before the lock wait, so a relay that waited for the other's lock still gets the row as unpublished and publishes it again.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const candidates = await client.query<{ id: number }>('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    const published: Row[] = [];
    for (const { id } of candidates.rows) {
      // Lock the row and read it again in one round trip.
      const { rows } = await client.query<Row>(
        'SELECT id, topic, payload, pg_advisory_xact_lock(id) AS locked FROM outbox WHERE id = $1 AND published_at IS NULL',
        [id],
      );
      const row = rows[0];
      if (!row) continue;
      await env.queue.publish(row.topic, row.payload);
      await client.query('UPDATE outbox SET published_at = now() WHERE id = $1', [row.id]);
      published.push(row);
    }
    await client.query('COMMIT');
    return published;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
