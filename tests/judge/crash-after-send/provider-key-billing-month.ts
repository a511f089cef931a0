// expect: wrong
// kind: wrong-key
// why: the provider key adds the month of the attempt (UTC) "so keys roll over with the billing period"; a takeover after a crash that falls in the next month (a send at 23:59:30 on the 31st, a takeover after midnight) sends under a new key, and the customer gets a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const month = new Date(env.clock.now()).toISOString().slice(0, 7);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:${month}` });
  await complete(env.db, key, sent);
  return 'ack';
}
