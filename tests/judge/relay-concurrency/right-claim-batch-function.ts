// expect: right
// kind: row-lock
// why: each pass calls a SQL function that marks a batch published in one UPDATE over ids locked FOR UPDATE SKIP LOCKED and returns those rows; inside the pass's transaction the rows stay locked (and marked) until COMMIT, so the other relay skips them, a crash before COMMIT rolls the marks back for a later pass, and each row is published once.
import type { Env } from 'effectively-once';

// Idempotent install: a second installer (or one that loses the race) just finds it there.
const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION claim_outbox_batch(n integer) RETURNS TABLE (id bigint, topic text, payload jsonb)
    LANGUAGE sql AS $fn$
      UPDATE outbox SET published_at = now()
      WHERE outbox.id IN (
        SELECT o.id FROM outbox o WHERE o.published_at IS NULL ORDER BY o.id LIMIT n FOR UPDATE SKIP LOCKED
      )
      RETURNING outbox.id, outbox.topic, outbox.payload
    $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END
$install$`;

export async function relayOnce(env: Env) {
  await env.db.query(INSTALL);
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM claim_outbox_batch($1) ORDER BY id',
      [2],
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    await client.query('COMMIT');
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
