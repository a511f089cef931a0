// expect: right
// kind: advisory-lock
// why: a session advisory lock taken on the client before BEGIN and let go after COMMIT (in a finally) makes the relays take turns: the second one's read runs after the first's commit, so it never sees rows the first published.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext('outbox-relay'))`);
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
      await client.query(`SELECT pg_advisory_unlock(hashtext('outbox-relay'))`);
    }
  } finally {
    client.release();
  }
}
