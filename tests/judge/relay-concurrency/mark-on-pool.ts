// expect: wrong
// kind: pool-client-mixup
// why: the rows are locked FOR UPDATE SKIP LOCKED on the transaction's client but marked through env.db.query, another connection, whose UPDATE waits for the client's own row locks: the relay hangs with its transaction open.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await env.db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
