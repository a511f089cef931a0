// expect: wrong
// kind: done-late
// why: the rows are locked FOR UPDATE SKIP LOCKED and published inside a transaction, but it commits before they are marked, so in the gap between that COMMIT and the UPDATE the other relay finds them unlocked and unpublished and publishes them again.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const rows = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
  // Keep the transaction short: mark outside it.
  if (rows.length) {
    await env.db.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
  }
  return rows;
}
