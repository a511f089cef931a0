// expect: right
// kind: row-lock
// why: FOR UPDATE NOWAIT locks the rows this relay publishes until COMMIT; a relay that finds one of them locked gets 55P03, rolls back and skips this pass instead of waiting, so no row goes out twice.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<Row>(
        'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR UPDATE NOWAIT',
      );
      for (const row of rows) await env.queue.publish(row.topic, row.payload);
      if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
      await client.query('COMMIT');
      return rows;
    } catch (err) {
      await client.query('ROLLBACK');
      if ((err as { code?: string }).code === '55P03') return [];
      throw err;
    }
  } finally {
    client.release();
  }
}
