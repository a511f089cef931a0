// expect: wrong
// kind: done-before-effect
// why: the send is started but not awaited (errors only logged) and the key is completed and the message acked at once, so a send that times out (the lost request) or a crash before it goes leaves the order done with no receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  // don't hold the consumer on a slow provider
  env.email
    .send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key })
    .catch((err) => env.log('receipt send failed', String(err)));
  await complete(env.db, key, { queued: true });
  return 'ack';
}
