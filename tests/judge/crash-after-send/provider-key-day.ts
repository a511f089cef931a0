// expect: wrong
// kind: wrong-key
// why: the provider's key carries the UTC day of the attempt, so a takeover that falls after midnight sends under a new key and the customer gets a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: opKey('receipt-email', { orderId: msg.orderId, day: new Date(env.clock.now()).toISOString().slice(0, 10) }) });
  await complete(env.db, key, sent);
  return 'ack';
}
