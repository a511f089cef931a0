// expect: wrong
// kind: done-before-effect
// why: the key is completed before the send, so a crash or a lost request between the two leaves the order done with no receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  await complete(env.db, key, { sending: true });
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  return 'ack';
}
