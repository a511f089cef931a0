// expect: right
// kind: row-lock
// why: the pass first locks its batch's ids FOR UPDATE SKIP LOCKED and then fetches those same rows' topics and payloads by id in the same transaction; the rows stay locked until COMMIT, so the other relay skips them and each row is published once.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const locked = await client.query<{ id: number }>(
      'SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    const ids = locked.rows.map((r) => Number(r.id));
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE id = ANY($1) ORDER BY id',
      [ids],
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (ids.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [ids]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
