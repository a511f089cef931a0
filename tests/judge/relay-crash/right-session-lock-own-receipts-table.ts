// expect: right
// kind: advisory-lock
// why: a session advisory lock per order on one dedicated client (checked with pg_try_advisory_lock and released in finally on the same client) serialises check, send and record; the send carries a per-order key for a worker that dies between send and record, and the record is our own table.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS receipts_sent (order_id bigint PRIMARY KEY, email_id text)');
  const client = await env.db.connect();
  let broken: Error | undefined;
  try {
    const { rows } = await client.query<{ got: boolean }>(
      `SELECT pg_try_advisory_lock(hashtext('receipt'), $1::int) AS got`,
      [msg.orderId],
    );
    if (!rows[0]?.got) return 'retry-later';
    try {
      const seen = await client.query('SELECT 1 FROM receipts_sent WHERE order_id = $1', [msg.orderId]);
      if (seen.rows.length) return 'ack';
      const sent = await env.email.send(
        { to: msg.customer, orderId: msg.orderId },
        { idempotencyKey: opKey('receipt-email', { orderId: msg.orderId }) },
      );
      await client.query('INSERT INTO receipts_sent (order_id, email_id) VALUES ($1, $2)', [msg.orderId, sent.emailId]);
      return 'ack';
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('receipt'), $1::int)`, [msg.orderId]);
    }
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(broken);
  }
}
