// expect: wrong
// kind: lease
// why: ON CONFLICT DO UPDATE with no WHERE clause updates, and so returns, the row every time, so every delivery believes it won the claim and sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query<{ state: string }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '60 seconds'
     RETURNING state`,
    [key],
  );
  if (mine.rows.length === 0 || mine.rows[0].state === 'done') return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
