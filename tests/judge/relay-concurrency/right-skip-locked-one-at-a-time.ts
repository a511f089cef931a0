// expect: right
// kind: row-lock
// why: inside one transaction the relay takes one row at a time with FOR UPDATE SKIP LOCKED, publishes and marks it, up to two rows; every row it publishes stays locked until COMMIT, so the other relay skips it.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const done: Row[] = [];
    while (done.length < 2) {
      const { rows } = await tx.query<Row>(
        'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED',
      );
      const row = rows[0];
      if (!row) break;
      await env.queue.publish(row.topic, row.payload);
      await tx.query('UPDATE outbox SET published_at = now() WHERE id = $1', [Number(row.id)]);
      done.push(row);
    }
    return done;
  });
}
