// expect: wrong
// kind: wrong-key
// why: a random key per delivery is new to the provider on the takeover after a crash, so the provider sends again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: env.random.uuid() });
  await complete(env.db, key, sent);
  return 'ack';
}
