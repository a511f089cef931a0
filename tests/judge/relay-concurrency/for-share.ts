// expect: wrong
// kind: relay-no-lock
// why: FOR SHARE locks are shared, so both relays lock and read the same unpublished rows and both publish them; their UPDATEs then wait on each other's share locks and PostgreSQL aborts one as a deadlock, after its messages went out.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

export async function relayOnce(env: Env) {
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>('SELECT id, topic, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2 FOR SHARE');
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
