// expect: right
// kind: row-lock
// why: the rows are locked by FOR UPDATE SKIP LOCKED in a sub-select inside the transaction, and the outer SELECT returns exactly those locked rows, so the other relay skips everything this one publishes until its COMMIT.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT id, topic, payload FROM outbox
       WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED)
       ORDER BY id`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
