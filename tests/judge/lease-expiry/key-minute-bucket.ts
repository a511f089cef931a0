// expect: wrong
// kind: wrong-key
// why: the key holds the minute of the attempt, so a redelivery a minute later claims a new key and sends a second receipt while the first key stays running for ever.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId, minute: Math.floor(env.clock.now() / 60_000) });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
