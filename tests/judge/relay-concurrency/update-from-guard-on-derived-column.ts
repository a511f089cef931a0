// expect: wrong
// kind: relay-no-lock
// why: the UPDATE … FROM re-checks published_at IS NULL on the derived table's copy (c.published_at), read from the statement's snapshot, not on the outbox row itself; a relay that waited for the other's row locks re-evaluates its WHERE on the newest outbox row but with the same stale c row, so it marks and publishes the same rows again.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `UPDATE outbox o SET published_at = now()
         FROM (SELECT id, published_at FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2) c
        WHERE o.id = c.id AND c.published_at IS NULL
        RETURNING o.id, o.topic, o.payload`,
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
