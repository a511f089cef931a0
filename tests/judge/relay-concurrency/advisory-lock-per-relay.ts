// expect: wrong
// kind: relay-no-lock
// why: pg_advisory_xact_lock is taken before the read, but on a key made from the relay's own name, so each relay holds a lock nobody else asks for: both read the same unpublished rows and both publish them.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`outbox-relay:${env.process}`]);
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
