// expect: wrong
// kind: done-before-effect
// why: the key is written 'done' before the e-mail goes, so a crash between the two leaves an order marked sent that never got its receipt.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const first = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (first.rows.length === 0) return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
