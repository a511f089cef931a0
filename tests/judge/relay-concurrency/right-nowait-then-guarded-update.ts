// expect: right
// kind: row-lock
// why: the fast path locks two unpublished rows FOR UPDATE NOWAIT; on 55P03 it rolls back and instead marks rows with UPDATE … WHERE published_at IS NULL … RETURNING in a new transaction, which waits for the other relay's locks and re-checks published_at on the newest rows, publishing only what that UPDATE returned before its COMMIT.
import { withTransaction, type Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown };

async function fast(env: Env): Promise<Row[] | 'busy'> {
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
      if ((err as { code?: string }).code === '55P03') return 'busy';
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function relayOnce(env: Env) {
  const got = await fast(env);
  if (got !== 'busy') return got;
  // Another relay holds some of them: take whatever the guarded UPDATE still finds unpublished.
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<Row>(
      `UPDATE outbox SET published_at = now()
       WHERE published_at IS NULL AND id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 2)
       RETURNING id, topic, payload`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    return rows;
  });
}
