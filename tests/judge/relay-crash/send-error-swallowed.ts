// expect: wrong
// kind: swallowed-timeout
// why: a failed or timed-out send is swallowed and the key completed and acknowledged anyway, so when the request never reached the provider the order's receipt is never sent and every redelivery finds it done.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent: unknown = null;
  try {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  } catch (err) {
    // Never block the queue on the mail provider: log it and move on.
    env.log(`receipt for order ${msg.orderId} failed: ${String(err)}`);
  }
  await complete(env.db, key, sent);
  return 'ack';
}
