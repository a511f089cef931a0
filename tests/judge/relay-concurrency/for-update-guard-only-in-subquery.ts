// expect: wrong
// kind: relay-no-lock
// why: the outer SELECT … FOR UPDATE waits for the other relay's row locks, but its WHERE is only id IN (sub-select): after the other relay commits, PostgreSQL re-checks that WHERE on the newest rows (the sub-select's answer is not re-run), finds them still "in" the list though now published, and the relay publishes them a second time.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT id, topic, payload FROM outbox
        WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2)
        ORDER BY id
        FOR UPDATE`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
