// expect: wrong
// kind: result-ignored
// why: INSERT … ON CONFLICT DO UPDATE … RETURNING returns a row whether the key was free or already claimed or done, so "a row came back" is read as "I own it" and the republished message sends the receipt a second time.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ state: string }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until
     RETURNING state`,
    [key],
  );
  if (rows.length === 0) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
