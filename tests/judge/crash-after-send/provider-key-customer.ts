// expect: wrong
// kind: wrong-key
// why: the provider's key names the customer, so a customer's second order is answered with the first order's e-mail and never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: opKey('receipt-email', { to: msg.customer }) });
  await complete(env.db, key, sent);
  return 'ack';
}
