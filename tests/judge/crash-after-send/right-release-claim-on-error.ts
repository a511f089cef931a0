// expect: right
// kind: compare-and-set
// why: the solution's claim, plus a release when the send fails: the lease is set back to -infinity (only while the row is still running) so the redelivery takes it over at once instead of waiting out the lease, and its resend carries the same key, which the provider dedupes.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  let sent;
  try {
    sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  } catch (err) {
    await env.db.query(`UPDATE operations SET lease_until = '-infinity' WHERE op_key = $1 AND state = 'running'`, [key]);
    throw err;
  }
  await complete(env.db, key, sent);
  return 'ack';
}
