// expect: wrong
// kind: relay-no-lock
// why: the batch is read in a transaction by a plain SELECT whose FOR UPDATE SKIP LOCKED survives only in a comment, so the read locks nothing and on PostgreSQL two relays' overlapping transactions read and publish the same rows.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      `SELECT id, topic, payload FROM outbox
       WHERE published_at IS NULL
       ORDER BY id
       LIMIT 2 -- was FOR UPDATE SKIP LOCKED; the transaction keeps the relays apart`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    await client.query('COMMIT');
    client.release();
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err as Error);
    throw err;
  }
}
