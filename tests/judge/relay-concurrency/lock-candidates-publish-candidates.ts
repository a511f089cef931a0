// expect: wrong
// kind: relay-no-lock
// why: the batch is read unlocked and then "locked" by a FOR UPDATE SKIP LOCKED read of the same ids whose answer is only logged, and the relay publishes the unlocked candidates: on PostgreSQL a second relay whose transaction overlaps reads the same unpublished rows, locks none of them (all skipped) and still publishes them.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const candidates = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    const ids = candidates.rows.map((r) => Number(r.id));
    // Lock them so the other relay leaves them alone.
    const locked = await client.query<{ id: number }>(
      'SELECT id FROM outbox WHERE id = ANY($1) ORDER BY id FOR UPDATE SKIP LOCKED',
      [ids],
    );
    env.log(`locked ${locked.rows.length} of ${ids.length} rows`);
    for (const row of candidates.rows) await env.queue.publish(row.topic, row.payload);
    if (ids.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [ids]);
    await client.query('COMMIT');
    return candidates.rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
