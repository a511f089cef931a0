// expect: wrong
// kind: relay-no-lock
// why: pg_try_advisory_xact_lock(id) in the WHERE of the read filters rows by the statement's snapshot, taken before the locks are tried: a relay whose SELECT started before the other committed (and released its locks) gets the locks and still sees the rows unpublished, so it publishes them again.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      `SELECT id, topic, payload FROM outbox
       WHERE published_at IS NULL AND pg_try_advisory_xact_lock(id)
       ORDER BY id LIMIT 2`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    }
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
