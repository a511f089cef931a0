// expect: wrong
// kind: relay-no-lock
// why: one statement, but its FOR UPDATE SKIP LOCKED is in the CTE that picks only the first unpublished row; the batch of two it returns is read from that id on without a lock, so the other relay locks the second row as its own first and both relays publish it.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `WITH head AS (
         SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       SELECT o.id, o.topic, o.payload FROM outbox o, head
        WHERE o.id >= head.id AND o.published_at IS NULL
        ORDER BY o.id LIMIT 2`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
