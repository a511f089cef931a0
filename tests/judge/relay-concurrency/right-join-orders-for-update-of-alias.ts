// expect: right
// kind: row-lock
// why: FOR UPDATE OF ob SKIP LOCKED locks exactly the outbox rows read (not the joined orders), and the published_at IS NULL predicate is re-checked on a row another relay updated, so each row goes out once per healthy relay.
import type { Env } from 'effectively-once';

type Row = { id: number; topic: string; payload: unknown; customer_id: string };

export async function relayOnce(env: Env) {
  const client = await env.db.connect();
  let failed: Error | undefined;
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Row>(
      `SELECT ob.id, ob.topic, ob.payload, ord.customer_id
         FROM outbox AS ob
         LEFT JOIN orders AS ord ON ord.id = (ob.payload->>'orderId')::bigint
        WHERE ob.published_at IS NULL
        ORDER BY ob.id
        LIMIT 2
        FOR UPDATE OF ob SKIP LOCKED`,
    );
    for (const row of rows) await env.queue.publish(row.topic, row.payload);
    if (rows.length) {
      const marked = await client.query(
        'UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[]) AND published_at IS NULL',
        [rows.map((r) => Number(r.id))],
      );
      if (marked.rowCount !== rows.length) throw new Error('outbox rows changed under our lock');
    }
    await client.query('COMMIT');
    return rows.map(({ id, topic, payload }) => ({ id: Number(id), topic, payload }));
  } catch (err) {
    failed = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release(failed);
  }
}
