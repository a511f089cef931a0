// expect: right
// kind: compare-and-set
// why: candidates (with payloads) are read unlocked, then marked by an UPDATE … WHERE id = ANY($1) AND published_at IS NULL RETURNING id inside the transaction, and only the ids that UPDATE returned are published (payloads never change) before COMMIT; on PostgreSQL the second relay's UPDATE waits for the first's row locks, re-checks published_at on the committed rows and returns none of them, so each row goes out once (a crash rolls the marks back).
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const candidates = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    const taken = await client.query<{ id: number }>(
      'UPDATE outbox SET published_at = now() WHERE id = ANY($1) AND published_at IS NULL RETURNING id',
      [candidates.rows.map((r) => Number(r.id))],
    );
    const mine = new Set(taken.rows.map((r) => Number(r.id)));
    const rows = candidates.rows.filter((r) => mine.has(Number(r.id)));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
