// expect: wrong
// kind: lease
// why: the claim's lease is built with make_interval(mins => 60), an hour rather than the 60 s meant, so after a worker dies between its claim and the send every redelivery finds the claim live, and the message is dead-lettered before it runs out: the receipt is never sent.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const leaseSeconds = 60;
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + make_interval(mins => $2))
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = now() + make_interval(mins => $2)
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key, leaseSeconds],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
