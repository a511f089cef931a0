// expect: wrong
// kind: relay-no-lock
// why: candidate ids are read unlocked, then the full rows are locked by id with a waiting SELECT * … FOR UPDATE and every row it returns is published without looking at its published_at; on PostgreSQL a second relay that read the same candidates waits for the first COMMIT, gets the rows back (the WHERE re-checks only the ids) and publishes them again.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const candidates = await client.query<{ id: number }>(
      'SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    const ids = candidates.rows.map((r) => Number(r.id));
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT * FROM outbox WHERE id = ANY($1) ORDER BY id FOR UPDATE',
      [ids],
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
