// expect: wrong
// kind: check-then-act
// why: it sends first and lets the primary key refuse the second INSERT, which tells the second worker about the duplicate only after its receipt went out.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const seen = await env.db.query(`SELECT 1 FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
  if (seen.rows.length) return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  try {
    await env.db.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())`, [key]);
  } catch {
    // already recorded by someone else: fine
  }
  return 'ack';
}
