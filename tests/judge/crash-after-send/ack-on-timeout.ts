// expect: wrong
// kind: swallowed-timeout
// why: after a timed-out send it acknowledges the message without retrying, so a lost request means the receipt is never sent and nobody tries again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  try {
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
    await complete(env.db, key, sent);
  } catch {
    env.log('send timed out; giving up on this receipt');
  }
  return 'ack';
}
