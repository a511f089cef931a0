// expect: right
// kind: compare-and-set
// why: the solution's claim with its lease written and compared on timeofday()::timestamptz, the database server's wall clock (like clock_timestamp(), not frozen at a transaction's start): one clock for every worker, so a crashed worker's 60 s claim runs out and the next delivery takes it over, and a live or done one is never taken.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', timeofday()::timestamptz + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < timeofday()::timestamptz
     RETURNING op_key`,
    [key],
  );
  if (rows.length === 0) {
    const existing = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return existing.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
