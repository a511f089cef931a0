// expect: wrong
// kind: lock-leak
// why: the session advisory lock and its unlock go through env.db.query, and a pool runs each query on whichever connection is free: the unlock can land on a connection that does not hold the lock (which then stays held by an idle connection), and another worker's lock can land on the holder and be granted re-entrantly.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
  try {
    const seen = await env.db.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length === 0) {
      await env.email.send({ to: msg.customer, orderId: msg.orderId });
      await env.db.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())`, [key]);
    }
  } finally {
    await env.db.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
  }
  return 'ack';
}
