// expect: wrong
// kind: relay-no-lock
// why: PostgreSQL never evaluates a SELECT common table expression the main query does not reference, so the FOR UPDATE SKIP LOCKED in `claimed` locks nothing and two relays' overlapping transactions read and publish the same rows.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // Claim our share of the batch first, then read it (same filter, same order, same limit).
    const { rows } = await client.query<Row>(
      `WITH claimed AS (
         SELECT id FROM outbox WHERE published_at IS NULL
         ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED
       )
       SELECT id, topic, payload FROM outbox
       WHERE published_at IS NULL ORDER BY id LIMIT 2`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    }
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
