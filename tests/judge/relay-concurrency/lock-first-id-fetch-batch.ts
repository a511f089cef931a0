// expect: wrong
// kind: relay-no-lock
// why: only the first unpublished row is locked FOR UPDATE SKIP LOCKED; the batch is then read from that id on without a lock, so the second row of the batch is another relay's to read and publish too.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const locked = await client.query<{ id: number }>(
      'SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED',
    );
    const ids = locked.rows.map((r) => Number(r.id));
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL AND id >= $1 ORDER BY id LIMIT 2',
      [ids[0] ?? 0],
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
