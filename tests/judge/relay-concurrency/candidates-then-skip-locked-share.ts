// expect: wrong
// kind: relay-no-lock
// why: the rows it publishes come from an unlocked read; the later FOR UPDATE SKIP LOCKED only tells it "I got some rows", so on PostgreSQL relay-2 reads rows 1-2 while relay-1 holds them, locks 3-4, and publishes 1-2 again.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const candidates = await client.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    if (!candidates.rows.length) {
      await client.query('COMMIT');
      return [];
    }
    // Reserve a share of the work so two relays do not both run a pass on an empty share.
    const mine = await client.query<{ id: number }>(
      'SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    if (mine.rows.length === 0) {
      await client.query('COMMIT');
      return [];
    }
    for (const row of candidates.rows) await env.queue.publish(row.topic, row.payload);
    await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [candidates.rows.map((r) => Number(r.id))]);
    await client.query('COMMIT');
    return candidates.rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
