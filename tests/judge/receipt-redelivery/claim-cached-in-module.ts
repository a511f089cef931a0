// expect: wrong
// kind: memory-cache
// why: the claim's answer is cached in a module-level variable keyed by the operation, so a redelivery to the same process reuses the first delivery's answer instead of asking the database: a process that once found the key claimed by another answers retry-later for good and the message never settles, and one that owned it sends again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

let lastClaim: { key: string; owned: boolean; done: boolean } | undefined;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  if (lastClaim?.key !== key) {
    const c = await claim(env.db, key, 60);
    lastClaim = { key, owned: c.owned, done: !c.owned && c.done };
  }
  if (!lastClaim.owned) return lastClaim.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
