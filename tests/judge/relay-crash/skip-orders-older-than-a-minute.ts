// expect: wrong
// kind: done-before-effect
// why: the consumer treats any message for an order placed more than a minute ago as a relay duplicate and acknowledges it unsent; a receipt whose first handling died before sending comes back after the queue's 30 s or 90 s wait, and on the slow seeds it is past the minute, so that order never gets its receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  // Relay re-publishes arrive late; a fresh order's message arrives within seconds.
  const { rows } = await env.db.query<{ stale: boolean }>(
    `SELECT created_at < now() - interval '1 minute' AS stale FROM orders WHERE id = $1`,
    [msg.orderId],
  );
  if (rows[0]?.stale) return 'ack';
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
