// expect: wrong
// kind: wrong-key
// why: the claim's key is built from the order id as a number and the complete's from the same id as a string, so opKey names two operations: the receipt is never marked done, and a copy of the message after the lease ran out takes the finished claim over and sends again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const c = await claim(env.db, opKey('receipt-email', { orderId: msg.orderId }), 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, opKey('receipt-email', { orderId: `${msg.orderId}` }), sent);
  return 'ack';
}
