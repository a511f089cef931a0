// expect: right
// kind: row-lock
// why: candidates (with their payloads) are read unlocked, then their ids are locked FOR UPDATE SKIP LOCKED with published_at IS NULL re-checked, and only the ids that lock read returned are published (with the payload read before: an outbox row's payload never changes) and marked; on PostgreSQL a row the other relay holds is skipped and one it committed no longer matches, so each row goes out once.
import type { Env } from 'effectively-once';

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const candidates = await client.query<{ id: number; topic: string; payload: unknown }>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2',
    );
    const locked = await client.query<{ id: number }>(
      'SELECT id FROM outbox WHERE id = ANY($1) AND published_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED',
      [candidates.rows.map((r) => Number(r.id))],
    );
    const mine = new Set(locked.rows.map((r) => Number(r.id)));
    const rows = candidates.rows.filter((r) => mine.has(Number(r.id)));
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [[...mine]]);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
