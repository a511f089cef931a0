// expect: right
// kind: row-lock
// why: one statement: a CTE picks unpublished ids FOR UPDATE SKIP LOCKED and an UPDATE … FROM it marks those rows and returns their payloads, inside the transaction that publishes; the rows stay locked until COMMIT, so the other relay skips them, and a crash before the publish rolls the mark back.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<Row>(
      `WITH picked AS (
         SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED
       )
       UPDATE outbox o SET published_at = now() FROM picked WHERE o.id = picked.id
       RETURNING o.id, o.topic, o.payload`,
    );
    for (const row of [...rows].sort((a, b) => Number(a.id) - Number(b.id))) await env.queue.publish(row.topic, row.payload);
    await client.query('COMMIT');
    client.release();
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
}
