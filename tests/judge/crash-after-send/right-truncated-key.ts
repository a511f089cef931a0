// expect: right
// kind: derived-key
// why: the claim and the provider key are the first 32 hex digits of the order's opKey, still derived from the order alone (128 bits, no collision between two orders), so every delivery and every worker names the operation the same way and a send after a crash is a replay.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  // The provider caps keys at 40 characters; a 32-digit prefix is plenty.
  const key = opKey('receipt-email', { orderId: msg.orderId }).slice(0, 32);
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
