// expect: wrong
// kind: relay-no-lock
// why: the advisory lock every relay takes before its read is keyed on pg_backend_pid(), which differs per connection: each relay locks a key of its own, nobody waits, and on PostgreSQL two overlapping transactions read and publish the same rows.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(pg_backend_pid())');
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    return rows;
  });
}
