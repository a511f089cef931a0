// expect: wrong
// kind: relay-no-lock
// why: when FOR UPDATE SKIP LOCKED returns less than a full batch, the batch is topped up with a plain read of unpublished rows, which are exactly the rows the other relay has locked and is publishing, so both relays publish them.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const locked = await client.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED',
    );
    let rows = locked.rows;
    if (rows.length < 2) {
      // keep batches full so the relay keeps up
      const more = await client.query<Row>(
        'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL AND NOT (id = ANY($1)) ORDER BY id LIMIT $2',
        [rows.map((r) => Number(r.id)), 2 - rows.length],
      );
      rows = [...rows, ...more.rows];
    }
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
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
