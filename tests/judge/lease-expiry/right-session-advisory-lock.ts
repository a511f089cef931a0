// expect: right
// kind: advisory-lock
// why: a session advisory lock held around check, send and insert needs no lease at all: a worker that dies drops its connection, PostgreSQL frees the lock, and the next delivery finds no row and sends once.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    const lock = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS got', [key]);
    if (!lock.rows[0].got) return 'retry-later';
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
