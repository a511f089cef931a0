// expect: right
// kind: own-dedupe-table
// why: its own table with the order id as primary key gives the same atomic claim with a lease, and the provider gets the same key for a takeover after a crash.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_sends (
    order_id integer PRIMARY KEY, state text NOT NULL, lease_until timestamptz NOT NULL)`);
  const mine = await env.db.query(
    `INSERT INTO receipt_sends (order_id, state, lease_until) VALUES ($1, 'sending', now() + interval '60 seconds')
     ON CONFLICT (order_id) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE receipt_sends.state = 'sending' AND receipt_sends.lease_until < now()
     RETURNING order_id`,
    [msg.orderId],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM receipt_sends WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.state === 'sent' ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: opKey('receipt-email', { orderId: msg.orderId }) });
  await env.db.query(`UPDATE receipt_sends SET state = 'sent' WHERE order_id = $1`, [msg.orderId]);
  return 'ack';
}
