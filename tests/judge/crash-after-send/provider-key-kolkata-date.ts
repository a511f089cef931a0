// expect: wrong
// kind: wrong-key
// why: the provider's key carries the date in India (the shop's home), so a takeover after a crash that falls past midnight there (18:30 UTC) sends under a new key and the provider, seeing new work, e-mails the customer a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

const homeDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' });

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sendKey = `${key}:${homeDate.format(new Date(env.clock.now()))}`;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: sendKey });
  await complete(env.db, key, sent);
  return 'ack';
}
