// expect: right
// kind: row-lock
// why: inside one transaction an UPDATE … RETURNING over rows picked FOR UPDATE SKIP LOCKED both locks and marks them before the publish; a crash rolls the mark back, so nothing is lost and no two relays share a row.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `UPDATE outbox SET published_at = now()
       WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED)
       RETURNING id, topic, payload`,
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
