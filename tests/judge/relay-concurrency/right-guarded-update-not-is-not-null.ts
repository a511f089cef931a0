// expect: right
// kind: compare-and-set
// why: the UPDATE … RETURNING over candidates from an unlocked sub-select repeats its guard in its own WHERE as NOT (published_at IS NOT NULL), which is published_at IS NULL written another way; PostgreSQL re-evaluates the whole WHERE on the newest row version after waiting for the other relay's lock, so a row the other relay marked is skipped and each row is published once.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `UPDATE outbox SET published_at = now()
       WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2)
         AND NOT (published_at IS NOT NULL)
       RETURNING id, topic, payload`,
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
