// expect: right
// kind: advisory-lock
// why: a session advisory lock on the order's key is held around check, send and insert on one connection, so on PostgreSQL the second worker waits and then finds the row; a crash closes the connection and frees the lock.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      const seen = await client.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
      if (seen.rows.length === 0) {
        await env.email.send({ to: msg.customer, orderId: msg.orderId });
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())`, [key]);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
    return 'ack';
  } finally {
    client.release();
  }
}
