// expect: wrong
// kind: relay-no-lock
// why: the session advisory lock is taken and let go again before BEGIN, so it keeps nobody out of the read: two relays read the same unpublished rows and both publish them.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    // Lock, then let go at once "so it cannot leak": the lock is gone before the read.
    await client.query(`SELECT pg_advisory_lock(hashtext('outbox-relay'))`);
    await client.query(`SELECT pg_advisory_unlock(hashtext('outbox-relay'))`);
    try {
      await client.query('BEGIN');
      try {
        const { rows } = await client.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
        for (const row of rows) await env.queue.publish(row.topic, row.payload);
        if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
        await client.query('COMMIT');
        return rows;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    } finally {
      // nothing to let go
    }
  } finally {
    client.release();
  }
}
