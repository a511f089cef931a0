// expect: right
// kind: derived-key
// why: the key is a plain string built from the order id, not opKey's hash, but it still names the operation: the same on every delivery, on every worker and on any day, for the claim and for the provider.
import { claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = `receipt-email/order/${msg.orderId}`;
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
