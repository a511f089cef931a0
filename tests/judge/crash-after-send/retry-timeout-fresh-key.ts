// expect: wrong
// kind: wrong-key
// why: after a timed-out send it retries at once under a new key "because the old one is still in flight at the provider", so when the first request did go through (its answer was lost) the provider sends a second e-mail.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent: unknown;
  try {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  } catch {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:retry` });
  }
  await complete(env.db, key, sent);
  return 'ack';
}
