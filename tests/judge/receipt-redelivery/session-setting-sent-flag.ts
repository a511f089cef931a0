// expect: wrong
// kind: memory-cache
// why: "already sent" is remembered in a custom setting (set_config(…, false)), which on PostgreSQL lives in one connection's session: the other worker's connection never sees it and a crashed worker's new connection has lost it, so a redelivery sends again and only the provider's memory of the key stands between the customer and a second receipt.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const flag = `receipts.order_${msg.orderId}`;
  const seen = await env.db.query<{ v: string | null }>('SELECT current_setting($1, true) AS v', [flag]);
  if (seen.rows[0]?.v === 'sent') return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query(`SELECT set_config($1, 'sent', false)`, [flag]);
  return 'ack';
}
