// expect: wrong
// kind: relay-no-lock
// why: the transaction-level advisory lock taken before the read is keyed on a number hashed in JavaScript from the relay's own name, so each relay takes a lock nobody else asks for: on PostgreSQL two overlapping passes both read the same unpublished rows and both publish them.
import type { Env } from 'effectively-once';

/** A small stable 31-bit hash, so the lock id fits an int. */
function lockId(name: string): number {
  let h = 7;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 2_147_483_647;
  return h;
}

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [lockId(`outbox-relay/${env.process}`)]);
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => r.id)]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
