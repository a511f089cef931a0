// expect: wrong
// kind: wrong-key
// why: a redelivery that lands in the next minute builds another key, so the claim and the provider both see new work and send a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const minute = Math.floor(env.clock.now() / 60_000);
  const key = opKey('receipt-email', { orderId: msg.orderId, minute });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
