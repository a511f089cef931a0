// expect: right
// kind: compare-and-set
// why: every read goes through the team's transaction helper (SET LOCAL statement_timeout), so the fast-path look at the key's state is a short read-only transaction; the decision itself is the autocommit INSERT … ON CONFLICT DO UPDATE … WHERE (lease run out), judged by node-postgres' rowCount, which only one worker can get as 1 — so one worker at a time sends, and a done key is acknowledged.
import { opKey, type DbClient, type Env, type ReceiptMessage } from 'effectively-once';

async function readTx<T>(env: Env, fn: (c: DbClient) => Promise<T>): Promise<T> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL statement_timeout = '5s'`);
    const out = await fn(c);
    await c.query('COMMIT');
    c.release();
    return out;
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const seen = await readTx(env, (c) =>
    c.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]).then((r) => r.rows[0]?.state),
  );
  if (seen === 'done') return 'ack';
  // The decision: one statement, its row count says who won.
  const claim = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE operations.state = 'running' AND operations.lease_until < now()`,
    [key],
  );
  if (claim.rowCount !== 1) {
    const again = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return again.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done' WHERE op_key = $1`, [key]);
  return 'ack';
}
