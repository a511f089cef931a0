// expect: wrong
// kind: lease
// why: a lease is written but the takeover never compares it with now(), so any second delivery takes over a live claim and sends too.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE operations.state = 'running'
     RETURNING op_key`,
    [key],
  );
  if (mine.rows.length === 0) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
