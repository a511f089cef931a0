// expect: wrong
// kind: lease
// why: a delivery that finds the order claimed extends the owner's lease "so nobody steals it mid-send", but when the owner died every redelivery renews the dead claim in turn: the lease never runs out, nobody takes it over, and the receipt is never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) {
    if (c.done) return 'ack';
    await env.db.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 AND state = 'running'`, [key]);
    return 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
