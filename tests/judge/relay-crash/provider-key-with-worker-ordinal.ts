// expect: wrong
// kind: wrong-key
// why: the provider key adds the number in the worker's name (its shard, "for the provider's per-shard rate limits"); when a worker dies between the send and complete and another worker (a replica) takes the claim over, the provider sees a new key and sends a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const shard = Number(env.process.replace(/\D+/g, '')) % 16;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:s${shard}` });
  await complete(env.db, key, sent);
  return 'ack';
}
