// expect: wrong
// kind: relay-no-lock
// why: candidates are read unlocked and each is try-locked (answer obeyed) but never read again: a relay that read the same rows before the other committed gets the lock once it is released and publishes them a second time.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const candidates = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    const published: Row[] = [];
    for (const row of candidates.rows) {
      const lock = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(7001, $1::int) AS got', [Number(row.id)]);
      if (!lock.rows[0].got) continue;
      await env.queue.publish(row.topic, row.payload);
      await tx.query('UPDATE outbox SET published_at = now() WHERE id = $1', [row.id]);
      published.push(row);
    }
    return published;
  });
}
