// expect: wrong
// kind: lease
// why: a delivery that finds the key running "keeps the claim alive" by pushing its lease forward before backing off, so after the owner died every redelivery renews the dead worker's lease and nobody ever takes it over: the receipt is never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) {
    if (c.done) return 'ack';
    // Someone is on it: keep their claim fresh so a third worker does not barge in.
    await env.db.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 AND state = 'running'`,
      [key],
    );
    return 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
