// expect: right
// kind: advisory-lock
// why: a session advisory lock on the order's key, released in finally, keeps check, send and record together on one connection; the provider key covers a crash after the send, whose lock PostgreSQL frees with the connection.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      const seen = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
      if (seen.rows.length === 0) {
        await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
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
