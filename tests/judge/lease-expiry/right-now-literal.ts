// expect: right
// kind: compare-and-set
// why: the claim is the solution's one statement written with the 'now' literal instead of now(): 'now'::timestamptz is the transaction's start time, exactly what now() returns, so the 60 s lease is set and compared on the database's clock.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', 'now'::timestamptz + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = 'now'::timestamptz + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < 'now'::timestamptz
     RETURNING op_key`,
    [key],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
