// expect: wrong
// kind: check-then-act
// why: the session advisory lock guards only the check and is let go before the send and the record, so a second worker that gets the lock right after still finds nothing recorded and sends too.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let seen = false;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      const row = await client.query(`SELECT 1 FROM operations WHERE op_key = $1`, [key]);
      seen = row.rows.length > 0;
    } finally {
      // Do not hold a lock across a network call.
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    client.release();
  }
  if (seen) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2) ON CONFLICT (op_key) DO NOTHING`,
    [key, JSON.stringify(sent)],
  );
  return 'ack';
}
