// expect: wrong
// kind: done-before-effect
// why: complete() runs in finally, so a send that failed or timed out still marks the key done, and every redelivery acknowledges an order whose receipt never went.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent: unknown = null;
  try {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  } finally {
    // "Always release the claim" — but done is not released.
    await complete(env.db, key, sent);
  }
  return 'ack';
}
