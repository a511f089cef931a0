// expect: wrong
// kind: relay-no-lock
// why: the lock is keyed on txid_current(), a number no other transaction ever has, so no relay waits for another: two overlapping transactions read and publish the same rows.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(txid_current())');
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    return rows;
  });
}
