// expect: wrong
// kind: whole-batch
// why: the batch is locked and published correctly, but the mark drops the id list ("everything unpublished is done now") and stamps every unpublished row, so rows beyond the batch of two are marked published without ever having been published.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE published_at IS NULL');
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
