// expect: wrong
// kind: wrong-key
// why: the provider key adds the date of the attempt in the shop's home zone, Alaska (America/Anchorage, UTC−9 in January); a takeover after a crash that falls on the next day there (a redelivery after Alaska's midnight) sends under a new key, and the customer gets a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // the shop's day (Anchorage), so support can find the send in the provider's daily export
  const day = new Date(env.clock.now()).toLocaleDateString('en-CA', { timeZone: 'America/Anchorage' });
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:${day}` });
  await complete(env.db, key, sent);
  return 'ack';
}
