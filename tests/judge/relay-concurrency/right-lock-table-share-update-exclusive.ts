// expect: right
// kind: row-lock
// why: each pass locks the outbox IN SHARE UPDATE EXCLUSIVE MODE, which conflicts with itself (and not with the shop's ROW EXCLUSIVE inserts), before it reads; the second relay waits until the first commits, then reads with a fresh snapshot in which those rows are published, so each row goes out once and the shop is never blocked.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE outbox IN SHARE UPDATE EXCLUSIVE MODE');
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
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
