// expect: right
// kind: advisory-lock
// why: one fixed key for every relay, taken before the read, makes the relays take turns; the pg_backend_pid() fetched in the same statement only labels the log line.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const me = await tx.query<{ backend: number }>(`SELECT pg_advisory_xact_lock(hashtext('outbox-relay')), pg_backend_pid() AS backend`);
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE');
    env.log(`backend ${me.rows[0]?.backend} publishes ${rows.length} row(s)`);
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    return rows;
  });
}
