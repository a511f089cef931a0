// expect: right
// kind: advisory-lock
// why: candidates are read unlocked, then each row is taken with pg_try_advisory_xact_lock (answer checked) and re-read with published_at IS NULL under that lock before it is published and marked; the lock lasts until COMMIT, so a relay that gets it later sees the mark.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const candidates = await tx.query<{ id: number }>('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    const published: Row[] = [];
    for (const c of candidates.rows) {
      const id = Number(c.id);
      const lock = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(7001, $1::int) AS got', [id]);
      if (!lock.rows[0].got) continue;
      const fresh = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE id = $1 AND published_at IS NULL', [id]);
      const row = fresh.rows[0];
      if (!row) continue;
      await env.queue.publish(row.topic, row.payload);
      await tx.query('UPDATE outbox SET published_at = now() WHERE id = $1', [id]);
      published.push(row);
    }
    return published;
  });
}
