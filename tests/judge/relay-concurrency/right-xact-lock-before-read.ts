// expect: right
// kind: advisory-lock
// why: pg_advisory_xact_lock taken first in the transaction makes the relays take turns: the second waits, then reads only what the first left unpublished; the lock ends with the COMMIT.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(4242)');
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
