// expect: wrong
// kind: relay-no-lock
// why: the answer of pg_try_advisory_xact_lock is read and logged but never obeyed, so a relay that did not get the lock still reads and publishes the rows the other relay is publishing.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const lock = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(4242) AS got');
    console.log(`relay lock: ${lock.rows[0].got}`);
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
