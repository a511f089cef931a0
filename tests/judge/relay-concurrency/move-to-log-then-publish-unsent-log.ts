// expect: wrong
// kind: relay-no-lock
// why: the relay first moves its rows from the outbox into a send log in a locked, committed transaction, then publishes every log row still marked unsent and marks them, unlocked: the second phase reads all unsent log rows, not the ones this relay moved, so on PostgreSQL relay-2's pass reads the rows relay-1 moved and has not yet marked, and both publish them.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS outbox_sendlog (
    id bigint PRIMARY KEY, topic text NOT NULL, payload jsonb NOT NULL, sent_at timestamptz)`);
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    await c.query(
      `WITH moved AS (
         DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL
                                          ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED)
         RETURNING id, topic, payload)
       INSERT INTO outbox_sendlog (id, topic, payload) SELECT id, topic, payload FROM moved`,
    );
    await c.query('COMMIT');
    c.release();
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
  const { rows } = await env.db.query<Row>('SELECT id, topic, payload FROM outbox_sendlog WHERE sent_at IS NULL ORDER BY id');
  for (const row of rows) {
    await env.queue.publish(row.topic, row.payload);
    await env.db.query('UPDATE outbox_sendlog SET sent_at = now() WHERE id = $1', [row.id]);
  }
  return rows;
}
