// expect: right
// kind: advisory-lock
// why: a session advisory lock held on one connection around read, publish and mark keeps the two relays' passes apart on PostgreSQL; a relay that dies closes its connection and frees the lock.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(4242)');
    try {
      const { rows } = await client.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
      for (const row of rows) await env.queue.publish(row.topic, row.payload);
      if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
      return rows;
    } finally {
      await client.query('SELECT pg_advisory_unlock(4242)');
    }
  } finally {
    client.release();
  }
}
