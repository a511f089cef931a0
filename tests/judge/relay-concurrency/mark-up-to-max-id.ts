// expect: wrong
// kind: relay-mark-before-publish
// why: the batch is locked FOR UPDATE SKIP LOCKED and published in one transaction, but marked with "id <= the highest id published" (one range scan on the index) instead of the ids themselves; a lower row the other relay had locked and skipped is marked too once that relay's transaction ends — and if that relay crashed before publishing it, it rolled back, so the row is marked published without ever having gone out.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT id, topic, payload FROM outbox WHERE published_at IS NULL
       ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      const maxId = Math.max(...rows.map((r) => Number(r.id)));
      await tx.query('UPDATE outbox SET published_at = now() WHERE published_at IS NULL AND id <= $1', [maxId]);
    }
    return rows;
  });
}
