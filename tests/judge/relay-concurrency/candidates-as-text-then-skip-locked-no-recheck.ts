// expect: wrong
// kind: relay-no-lock
// why: the payloads come from an unlocked read and the FOR UPDATE SKIP LOCKED of those ids does not re-check published_at IS NULL: on PostgreSQL a relay whose candidate read came before the other relay's COMMIT locks the rows once that relay let go of them, already published, and publishes them again.
import { withTransaction, type Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows: candidates } = await tx.query<{ id: number; topic: string; body: string }>(
      'SELECT id, topic, payload::text AS body FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    if (candidates.length === 0) return [];
    const { rows: locked } = await tx.query<{ id: number }>(
      'SELECT id FROM outbox WHERE id = ANY($1) ORDER BY id FOR UPDATE SKIP LOCKED',
      [candidates.map((r) => Number(r.id))],
    );
    const mine = new Set(locked.map((r) => Number(r.id)));
    const taken = candidates.filter((r) => mine.has(Number(r.id)));
    for (const row of taken) await env.queue.publish(row.topic, JSON.parse(row.body));
    if (taken.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [taken.map((r) => Number(r.id))]);
    return taken;
  });
}
