// expect: right
// kind: compare-and-set
// why: candidates are read unlocked, but before publishing the relay marks them with an UPDATE … WHERE published_at IS NULL … RETURNING id (PostgreSQL re-checks that WHERE once the other relay commits and skips its rows) and publishes only the ids that UPDATE returned; an outbox payload is never changed, so the payload read a statement earlier is the row's payload.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows: candidates } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    if (candidates.length === 0) return [];
    const { rows: marked } = await tx.query<{ id: number }>(
      'UPDATE outbox SET published_at = now() WHERE id = ANY($1) AND published_at IS NULL RETURNING id',
      [candidates.map((r) => Number(r.id))],
    );
    const mine = new Set(marked.map((m) => Number(m.id)));
    const taken = candidates.filter((r) => mine.has(Number(r.id)));
    for (const row of taken) await env.queue.publish(row.topic, row.payload);
    return taken;
  });
}
