// expect: wrong
// kind: relay-no-lock
// why: the relay joins each outbox row to its order and writes FOR UPDATE OF the order's alias: the orders are locked, the outbox rows are not; a second relay waits on an order, and once the first commits PostgreSQL re-reads only the locked order row, so the outbox row keeps the published_at IS NULL it had and is published again.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT o.id, o.topic, o.payload
       FROM outbox o JOIN orders r ON r.id = (o.payload->>'orderId')::bigint
       WHERE o.published_at IS NULL
       ORDER BY o.id LIMIT 2
       FOR UPDATE OF r`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    return rows;
  });
}
