// expect: right
// kind: advisory-lock
// why: after a read-only fast path, the worker takes pg_try_advisory_lock on the key on one dedicated connection (answer checked) and re-reads state under it before sending; a second worker gets false and comes back later, and a worker that dies drops its connection, which frees the lock for the next delivery.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

type Row = { state: string } | undefined;

/** The team's read helper: one short READ ONLY transaction. */
async function readState(env: Env, key: string): Promise<Row> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN READ ONLY');
    const { rows } = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    await client.query('COMMIT');
    return rows[0];
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  if ((await readState(env, key))?.state === 'done') return 'ack';

  const conn = await env.db.connect();
  let broken: Error | undefined;
  try {
    const got = await conn.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [key]);
    if (got.rows[0]?.locked !== true) return 'retry-later';
    try {
      // Under the lock: a fresh read sees whatever the previous holder committed.
      const now = await conn.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
      if (now.rows[0]?.state === 'done') return 'ack';
      const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
      await conn.query(
        `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
         ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
        [key, JSON.stringify(sent ?? null)],
      );
      return 'ack';
    } finally {
      await conn.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch((e: Error) => {
        broken = e;
      });
    }
  } finally {
    conn.release(broken);
  }
}
