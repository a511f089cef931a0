// expect: right
// kind: row-lock
// why: the batch is read through a cursor declared FOR UPDATE SKIP LOCKED inside the transaction that publishes and marks it; each row the cursor fetches is locked until COMMIT, so the other relay skips it.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `DECLARE batch CURSOR FOR
         SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED`,
    );
    const { rows } = await client.query<Row>('FETCH ALL FROM batch');
    await client.query('CLOSE batch');
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
