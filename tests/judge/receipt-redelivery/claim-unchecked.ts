// expect: wrong
// kind: result-ignored
// why: claim() is called but its answer is never read, so a second worker sends while the first holds the claim; only a provider that still remembers the key hides it.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await claim(env.db, key, 60);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
