// expect: wrong
// kind: relay-no-lock
// why: the batch is read from public.outbox inside a transaction with no FOR UPDATE: two relays' transactions overlap on PostgreSQL, both read the same unpublished rows, and both publish them.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      'SELECT id, topic, payload FROM public.outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    for (const row of rows) {
      await env.queue.publish(row.topic, row.payload);
      await client.query('UPDATE public.outbox SET published_at = now() WHERE id = $1', [row.id]);
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
