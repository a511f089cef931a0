// expect: wrong
// kind: relay-no-lock
// why: the relays take pg_advisory_xact_lock on the current 2 s polling tick ("one relay per tick"), computed from now(); relays that poll out of phase — started at different moments, or one restarted after a crash — ask for different ticks, hold different keys, and on PostgreSQL their overlapping transactions read and publish the same unpublished rows.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(floor(extract(epoch FROM now()) / 2)::bigint)`);
    const { rows } = await tx.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
