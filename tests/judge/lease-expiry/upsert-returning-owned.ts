// expect: wrong
// kind: result-ignored
// why: the upsert keeps a live or done row unchanged with a CASE but still returns it, so every delivery gets a row back and reads it as its own claim: a duplicate during the slow send, or after the receipt went out, sends the receipt again.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = CASE
         WHEN operations.state <> 'done' AND operations.lease_until < now() THEN now() + interval '60 seconds'
         ELSE operations.lease_until END
     RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
