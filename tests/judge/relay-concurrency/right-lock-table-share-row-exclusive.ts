// expect: right
// kind: row-lock
// why: every relay takes LOCK TABLE outbox IN SHARE ROW EXCLUSIVE MODE, a mode that conflicts with itself, before it reads, so passes run one at a time and each row is read unpublished, published and marked by one relay only.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // self-conflicting, but lets the shop's INSERTs (ROW EXCLUSIVE) wait only on... well, it blocks them too; fine for a relay pass
    await client.query('LOCK TABLE outbox IN SHARE ROW EXCLUSIVE MODE');
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
