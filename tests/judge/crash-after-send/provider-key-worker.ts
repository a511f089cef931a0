// expect: wrong
// kind: wrong-key
// why: the provider's key includes the name of the worker that sends, so when another worker takes the key over after a crash the provider sees a new key and sends a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // "Traceable": which worker sent it is in the key.
  const sendKey = `${key}:${env.process}`;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: sendKey });
  await complete(env.db, key, sent);
  return 'ack';
}
