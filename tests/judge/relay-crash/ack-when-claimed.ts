// expect: wrong
// kind: no-retry
// why: a delivery that finds the order's key claimed but not done acknowledges the message as handled elsewhere, so when the worker holding the claim died before sending, the redelivery and the republished copy are both acknowledged and the receipt is never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
