// expect: wrong
// kind: wrong-key
// why: the provider key carries the UTC hour of the attempt, so a takeover after a crash that lands in the next hour (or the next morning) sends under a new key and the provider sends a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // Provider keys are scoped per hour so they never collide with last week's sends.
  const hour = new Date(env.clock.now()).toISOString().slice(0, 13);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:${hour}` });
  await complete(env.db, key, sent);
  return 'ack';
}
