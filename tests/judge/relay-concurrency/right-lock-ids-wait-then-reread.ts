// expect: right
// kind: row-lock
// why: candidate ids are read, then locked by id with a waiting FOR UPDATE; once the locks are held (after any other relay committed) a fresh READ COMMITTED read of those ids with published_at IS NULL sees the newest rows, so only rows this transaction holds and nobody published are published.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const candidates = await tx.query<{ id: number }>('SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2');
    const ids = candidates.rows.map((r) => Number(r.id));
    if (ids.length === 0) return [];
    await tx.query('SELECT id FROM outbox WHERE id = ANY($1) ORDER BY id FOR UPDATE', [ids]);
    // Locks held: this statement's snapshot is newer than any relay that published them first.
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE id = ANY($1) AND published_at IS NULL ORDER BY id', [ids]);
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
