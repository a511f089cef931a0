// expect: right
// kind: per-item
// why: the two relays split the outbox by id parity, relay-1 the odd ids and relay-2 the even ones, so no row is ever read by both; each relay publishes and marks its own rows in one locked transaction, and a relay that dies comes back and publishes its rows then.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const shard = env.process === 'relay-1' ? 1 : 0;
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT id, topic, payload FROM outbox WHERE published_at IS NULL AND id % 2 = $1
       ORDER BY id LIMIT 2 FOR UPDATE`,
      [shard],
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
