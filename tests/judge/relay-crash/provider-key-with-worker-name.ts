// expect: wrong
// kind: wrong-key
// why: the claim is keyed on the order, but the e-mail's idempotency key adds the worker's name "so the provider's logs say who sent it"; when a worker dies between the send and complete, the delivery is taken over by another worker (a new pod name after a restart, or any other replica), the provider sees a new key and the customer gets a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:${env.process}` });
  await complete(env.db, key, sent);
  return 'ack';
}
