// expect: wrong
// kind: result-ignored
// why: pg_try_advisory_lock answers false when another session holds the lock, but the answer is never read, so both workers go on to check and send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('SELECT pg_try_advisory_lock(hashtext($1))', [key]);
    const seen = await client.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length === 0) {
      await env.email.send({ to: msg.customer, orderId: msg.orderId });
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING`, [key]);
    }
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    return 'ack';
  } finally {
    client.release();
  }
}
