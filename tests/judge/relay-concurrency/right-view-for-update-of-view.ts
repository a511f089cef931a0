// expect: right
// kind: row-lock
// why: the batch is read through a view of the unpublished rows with FOR UPDATE OF the view's name, SKIP LOCKED; PostgreSQL applies a locking clause on a view to the tables underneath, so the outbox rows are locked until the COMMIT that marks them, and the other relay skips them.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

async function ensureView(env: Env) {
  const { rows } = await env.db.query(`SELECT 1 FROM pg_views WHERE viewname = 'pending_messages'`);
  if (rows.length) return;
  try {
    await env.db.query(
      `CREATE VIEW pending_messages AS SELECT id, topic, payload FROM outbox WHERE published_at IS NULL`,
    );
  } catch (err) {
    // The other relay created it first.
    if (!['42P07', '23505', 'XX000'].includes((err as { code?: string }).code ?? '')) throw err;
  }
}

export async function relayOnce(env: Env) {
  await ensureView(env);
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      'SELECT id, topic, payload FROM pending_messages ORDER BY id LIMIT 2 FOR UPDATE OF pending_messages SKIP LOCKED',
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) await tx.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [rows.map((r) => Number(r.id))]);
    return rows;
  });
}
