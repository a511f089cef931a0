// expect: wrong
// kind: sql-newer-than-15
// why: the batch is read from a derived table that locks its rows FOR UPDATE SKIP LOCKED, right on PostgreSQL 16 and later, but the derived table has no alias, which PostgreSQL 15 refuses ("subquery in FROM must have an alias"): the relay fails on every pass and publishes nothing.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT id, topic, payload
       FROM (SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED)
       ORDER BY id`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length > 0) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
    return rows;
  });
}
