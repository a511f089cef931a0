// expect: wrong
// kind: relay-no-lock
// why: the advisory lock is taken after the SELECT already read the rows, so on PostgreSQL the second relay waits for the lock and then publishes the rows it read before, which the first has just published.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    await tx.query('SELECT pg_advisory_xact_lock(4242)');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
