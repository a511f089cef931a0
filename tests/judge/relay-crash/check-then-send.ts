// expect: wrong
// kind: check-then-act
// why: check and record are separate statements around the send, so with two consumers (or a republish handed out while the first delivery is still being handled) both find nothing and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const seen = await env.db.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
  if (seen.rows.length > 0) return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING`, [key]);
  return 'ack';
}
