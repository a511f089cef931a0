// expect: wrong
// kind: relay-no-lock
// why: the UPDATE … RETURNING marks rows picked by a sub-select that locks nothing; a second relay's UPDATE picked the same ids, waits for the first relay's row locks and, once it commits, re-checks only id IN (…), not published_at IS NULL, so it marks and publishes the same rows again.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `UPDATE outbox SET published_at = now()
       WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2)
       RETURNING id, topic, payload`,
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
