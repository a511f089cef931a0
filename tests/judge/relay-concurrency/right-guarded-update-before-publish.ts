// expect: right
// kind: compare-and-set
// why: candidates are read without a lock, then inside the transaction each is marked by an UPDATE … WHERE published_at IS NULL RETURNING before it is published: the UPDATE's row lock holds until COMMIT, the other relay's UPDATE waits and then matches nothing, and a crash rolls the mark back.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const candidates = await tx.query<{ id: number }>('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    const published: Row[] = [];
    for (const c of candidates.rows) {
      const won = await tx.query<Row>(
        'UPDATE outbox SET published_at = now() WHERE id = $1 AND published_at IS NULL RETURNING id, topic, payload',
        [Number(c.id)],
      );
      const row = won.rows[0];
      if (!row) continue;
      await env.queue.publish(row.topic, row.payload);
      published.push(row);
    }
    return published;
  });
}
