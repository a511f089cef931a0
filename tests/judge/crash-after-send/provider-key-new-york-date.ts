// expect: wrong
// kind: wrong-key
// why: the provider key names the shop's business day in New York as well as the order, so a takeover after a crash that falls past midnight in New York sends under a new key and the customer gets a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

const shopDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // The receipt of this order on this (shop) day: the provider dedupes within its day anyway.
  const day = shopDay.format(new Date(env.clock.now()));
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId },
    { idempotencyKey: opKey('receipt-send', { orderId: msg.orderId, day }) },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
