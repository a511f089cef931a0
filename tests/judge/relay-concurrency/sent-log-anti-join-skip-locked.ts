// expect: wrong
// kind: relay-no-lock
// why: the "already sent" test is a NOT EXISTS on another table, read in the statement's snapshot; a row relay-1 only locked (never updated) is not re-checked once relay-1 commits, so relay-2 whose snapshot predates that COMMIT locks it and publishes it again.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  // The outbox stays append-only; what went out is logged beside it.
  await env.db.query('CREATE TABLE IF NOT EXISTS outbox_sent (outbox_id bigint PRIMARY KEY, sent_at timestamptz NOT NULL DEFAULT now())');
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      `SELECT o.id, o.topic, o.payload FROM outbox o
       WHERE NOT EXISTS (SELECT 1 FROM outbox_sent s WHERE s.outbox_id = o.id)
       ORDER BY o.id LIMIT 2
       FOR UPDATE OF o SKIP LOCKED`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await client.query('INSERT INTO outbox_sent (outbox_id) SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING', [rows.map((r) => Number(r.id))]);
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
