// expect: wrong
// kind: result-ignored
// why: the claim is an atomic INSERT … ON CONFLICT DO NOTHING, but nobody reads whether it inserted, so both workers send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
  if (row.rows[0]?.state === 'done') return 'ack';
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
