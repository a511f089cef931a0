// expect: right
// kind: row-lock
// why: FOR UPDATE without SKIP LOCKED (newest first) makes the second relay wait for the first's row locks; after the first commits PostgreSQL re-checks published_at IS NULL on the locked rows and drops them, so no row is published twice — slower, not wrong.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      'SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id DESC LIMIT 2 FOR UPDATE',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
