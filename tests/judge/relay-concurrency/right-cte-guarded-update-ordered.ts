// expect: right
// kind: cte
// why: the guarded UPDATE … RETURNING is wrapped in a CTE only to return its rows in id order; its own WHERE re-checks published_at IS NULL, which PostgreSQL re-evaluates on a row once the other relay's transaction commits, so a relay that waited skips the rows the other published.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      `WITH marked AS (
         UPDATE outbox SET published_at = now()
         WHERE published_at IS NULL
           AND id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2)
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
