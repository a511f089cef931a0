// expect: wrong
// kind: check-then-act
// why: the session lock is keyed on pg_backend_pid(), which is each connection's own number, so two workers never wait for each other: both find no row and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(pg_backend_pid())');
    try {
      const seen = await client.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
      if (seen.rows.length === 0) {
        await env.email.send({ to: msg.customer, orderId: msg.orderId });
        await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())`, [key]);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(pg_backend_pid())');
    }
    return 'ack';
  } finally {
    client.release();
  }
}
