// expect: right
// kind: row-lock
// why: the batch is taken with DELETE FROM public.outbox … RETURNING inside the transaction that publishes; a second relay's DELETE of the same rows waits for the first one's row locks and, once it commits, finds them gone, so each row is published once, and a crash before COMMIT puts the rows back.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `DELETE FROM public.outbox
       WHERE id IN (SELECT id FROM public.outbox WHERE published_at IS NULL ORDER BY id LIMIT 2)
       RETURNING id, topic, payload`,
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
