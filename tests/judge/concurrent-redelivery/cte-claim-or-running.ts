// expect: wrong
// kind: check-then-act
// why: one CTE statement inserts the key or, when it is already there and not done, returns the existing running row "so a retry of our own claim still works": a second worker holding the message gets the first worker's running row back, takes it for its own claim, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ state: string }>(
    `WITH ins AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING
       RETURNING state
     )
     SELECT state FROM ins
     UNION ALL
     SELECT state FROM operations WHERE op_key = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
    [key],
  );
  if (rows[0]?.state === 'done') return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
