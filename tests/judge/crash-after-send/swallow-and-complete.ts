// expect: wrong
// kind: swallowed-timeout
// why: a timed-out send is taken as sent and completed, but a timeout says nothing: when the request never arrived the receipt is never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent: unknown = null;
  try {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  } catch {
    sent = { assumed: 'sent' };
  }
  await complete(env.db, key, sent);
  return 'ack';
}
