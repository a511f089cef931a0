// expect: wrong
// kind: relay-mark-before-publish
// why: the publishes are started but not awaited, so the rows are marked and committed before the messages have gone, and a relay that dies in between loses them for good.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    rows.forEach((row) => void env.queue.publish(row.topic, row.payload));
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
