// expect: wrong
// kind: swallowed-timeout
// why: a failed or timed-out send is caught and the message acknowledged "so it does not loop", with the claim left running, so when the request never reached the provider the receipt is never sent and no redelivery comes to try again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  try {
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
    await complete(env.db, key, sent);
  } catch (err) {
    env.log('send failed, giving up on this message', String(err));
  }
  return 'ack';
}
