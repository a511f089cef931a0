// expect: wrong
// kind: wrong-key
// why: the provider's key carries the minute of the attempt, and a takeover comes after the 60 s lease, in another minute, so the provider sees a new key and sends again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: opKey('receipt-email', { orderId: msg.orderId, minute: Math.floor(env.clock.now() / 60_000) }) });
  await complete(env.db, key, sent);
  return 'ack';
}
