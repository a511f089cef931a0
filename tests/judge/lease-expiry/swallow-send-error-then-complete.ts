// expect: wrong
// kind: swallowed-timeout
// why: a send that throws (a timeout after 30 s, the request lost on its way) is logged and the key is completed and acked anyway, so that order never gets its receipt; only a lost or failed e-mail request shows it.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent: unknown = null;
  try {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  } catch (err) {
    // no idempotency keys at this provider: retrying risks a duplicate, so log it for support
    env.log('receipt send failed, not retrying', String(err));
  }
  await complete(env.db, key, sent);
  return 'ack';
}
