// expect: right
// kind: row-lock
// why: in one transaction a single statement deletes up to two unpublished rows picked FOR UPDATE SKIP LOCKED and moves them into a published log, returning what it moved; the relay publishes exactly those rows and commits, so the other relay skips (or, after COMMIT, no longer finds) them, and a crash before COMMIT puts them back in the outbox.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS outbox_published (
    id bigint PRIMARY KEY, topic text NOT NULL, payload jsonb NOT NULL,
    created_at timestamptz NOT NULL, published_at timestamptz NOT NULL DEFAULT now())`);
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const { rows } = await c.query<Row>(
      `WITH moved AS (
         DELETE FROM outbox
          WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL
                        ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED)
         RETURNING id, topic, payload, created_at)
       INSERT INTO outbox_published (id, topic, payload, created_at)
       SELECT id, topic, payload, created_at FROM moved
       RETURNING id, topic, payload`,
    );
    rows.sort((a, b) => a.id - b.id);
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    await c.query('COMMIT');
    c.release();
    return rows;
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
}
