// expect: wrong
// kind: relay-no-lock
// why: it locks one row as its share but publishes both rows of its unlocked read; on PostgreSQL the second relay reads the same two rows while the first holds one, locks the other, and publishes both again.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const batch = await client.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    if (!batch.rows.length) {
      await client.query('COMMIT');
      return [];
    }
    const share = await client.query<{ id: number }>('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED');
    if (!share.rows.length) {
      await client.query('COMMIT');
      return [];
    }
    for (const row of batch.rows) await env.queue.publish(row.topic, row.payload);
    await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [batch.rows.map((r) => Number(r.id))]);
    await client.query('COMMIT');
    return batch.rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
