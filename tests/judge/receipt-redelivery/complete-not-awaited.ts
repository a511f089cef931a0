// expect: wrong
// kind: done-before-effect
// why: complete() is not awaited, so the handler acknowledges before the done row is written; a crash right after the ack leaves the key running with nobody to finish it.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  void complete(env.db, key, sent);
  return 'ack';
}
