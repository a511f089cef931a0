// expect: wrong
// kind: check-then-act
// why: the SELECT and the INSERT are separate statements, so two deliveries both find no row and both send, and the conflict is ignored afterwards.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const seen = await env.db.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
  if (seen.rows.length > 0) return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING`,
    [key],
  );
  return 'ack';
}
