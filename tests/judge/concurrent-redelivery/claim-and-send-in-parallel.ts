// expect: wrong
// kind: check-then-act
// why: the claim and the send are started together with Promise.all "to save a round trip", so the e-mail is already on its way before the claim's answer is read, and both workers holding the message send.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const [c, sent] = await Promise.all([claim(env.db, key, 60), env.email.send({ to: msg.customer, orderId: msg.orderId })]);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  await complete(env.db, key, sent);
  return 'ack';
}
