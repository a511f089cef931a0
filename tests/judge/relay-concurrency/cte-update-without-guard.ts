// expect: wrong
// kind: relay-no-lock
// why: the UPDATE wrapped in a CTE marks the next two rows, but its own WHERE does not ask published_at IS NULL again: a relay that waited for the other's row locks updates the same rows once they are committed, gets them back from RETURNING and publishes them a second time.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      `WITH marked AS (
         UPDATE outbox SET published_at = now()
         WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2)
         RETURNING id, topic, payload
       )
       SELECT id, topic, payload FROM marked ORDER BY id`,
    );
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
