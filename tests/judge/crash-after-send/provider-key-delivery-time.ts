// expect: wrong
// kind: wrong-key
// why: the provider's key carries the time of the attempt, so the takeover after a crash sends under a new key and the provider sends a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: opKey('receipt-email', { orderId: msg.orderId, at: env.clock.now() }) });
  await complete(env.db, key, sent);
  return 'ack';
}
