// expect: wrong
// kind: relay-no-lock
// why: the relays' shared pg_advisory_xact_lock sits in a common table expression the SELECT never references, which PostgreSQL never evaluates, so no lock is taken and both relays' transactions read and publish the same unpublished rows.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // Relays take turns: one lock for the whole outbox, held until COMMIT, taken in the same round trip as the read.
    const { rows } = await client.query<Row>(
      `WITH relay_turn AS (SELECT pg_advisory_xact_lock(hashtext('outbox-relay')))
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
