// expect: wrong
// kind: relay-no-lock
// why: SERIALIZABLE makes one of two overlapping relays fail at its UPDATE or COMMIT, but only after both read the same rows and both published them: isolation cannot take back a message already sent.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const { rows } = await client.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
      for (const row of rows) await env.queue.publish(row.topic, row.payload);
      if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
      await client.query('COMMIT');
      return rows;
    } catch (err) {
      await client.query('ROLLBACK');
      if ((err as { code?: string }).code === '40001') return [];
      throw err;
    }
  } finally {
    client.release();
  }
}
