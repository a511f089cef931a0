// expect: wrong
// kind: relay-no-lock
// why: the batch is read FOR UPDATE SKIP LOCKED inside a savepoint that is then rolled back "since the read changed nothing", but rolling back a savepoint releases the row locks taken after it, so on PostgreSQL the other relay locks and publishes the same rows while this one is still publishing them.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // Keep a failed read from aborting the whole transaction.
    await client.query('SAVEPOINT pick');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    // The read wrote nothing: nothing to keep in the savepoint.
    await client.query('ROLLBACK TO SAVEPOINT pick');
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
