// expect: wrong
// kind: lock-leak
// why: the session advisory lock is taken around check, send and insert but never released (no finally, no unlock), so the worker keeps it after it is done and the next delivery of the same order waits for it forever.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
  const seen = await client.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
  if (seen.rows.length === 0) {
    await env.email.send({ to: msg.customer, orderId: msg.orderId });
    await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())`, [key]);
  }
  client.release();
  return 'ack';
}
