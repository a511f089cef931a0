// expect: wrong
// kind: relay-no-lock
// why: when FOR UPDATE NOWAIT finds the rows locked (55P03: the other relay is mid-pass) this relay rolls back and publishes from a plain read instead of waiting, and that read still sees the other relay's uncommitted rows as unpublished, so both relays publish them.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    let rows: Row[];
    try {
      rows = (await client.query<Row>(
        'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE NOWAIT',
      )).rows;
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      // busy: don't stall the poll loop, just do a best-effort pass without locks
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      rows = (await client.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2')).rows;
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
