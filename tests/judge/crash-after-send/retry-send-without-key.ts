// expect: wrong
// kind: swallowed-timeout
// why: the first send carries the claim's key, but after a timeout the retry is sent without it ("the first one failed"), so when only the answer was lost the provider cannot tell the retry from a new e-mail and the customer gets two receipts.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent: unknown;
  try {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  } catch {
    // It failed, so this is a fresh attempt.
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  }
  await complete(env.db, key, sent);
  return 'ack';
}
