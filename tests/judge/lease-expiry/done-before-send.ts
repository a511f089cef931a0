// expect: wrong
// kind: done-before-effect
// why: the claim is marked done before the e-mail goes, so a worker dying between the two leaves a done key and a customer with no receipt; no lease can bring it back.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  await complete(env.db, key, { sending: true });
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
