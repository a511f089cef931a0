// expect: right
// kind: row-lock
// why: the batch read is a prepared statement (prepared once per connection, found in pg_prepared_statements otherwise) whose text is SELECT … FOR UPDATE SKIP LOCKED, executed inside the transaction that publishes and marks: its rows stay locked until COMMIT, so the other relay skips them.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const known = await client.query(`SELECT 1 FROM pg_prepared_statements WHERE name = 'relay_next_batch'`);
    if (known.rows.length === 0) {
      await client.query(
        'PREPARE relay_next_batch(int) AS SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED',
      );
    }
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>('EXECUTE relay_next_batch(2)');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
