// expect: right
// kind: row-lock
// why: FOR UPDATE OF o SKIP LOCKED locks the outbox rows of the join (read from orders first), so a second relay skips them and each row is published by the one transaction holding its lock.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      `SELECT o.id, o.topic, o.payload
         FROM orders ord
         JOIN outbox o ON o.payload->>'orderId' = ord.id::text
        WHERE o.published_at IS NULL
        ORDER BY o.id
        LIMIT 2
        FOR UPDATE OF o SKIP LOCKED`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    }
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
