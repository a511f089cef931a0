// expect: wrong
// kind: lease
// why: the lease is kept in epoch milliseconds but extended by 60 as if it were seconds, so a claim lasts 60 ms; a redelivery during the 20 s send finds it expired, takes it over and sends a second receipt.
import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_leases (
    order_id bigint PRIMARY KEY, sent boolean NOT NULL DEFAULT false, lease_until_ms bigint NOT NULL)`);
  const mine = await env.db.query(
    `INSERT INTO receipt_leases (order_id, lease_until_ms) VALUES ($1, (extract(epoch FROM now()) * 1000)::bigint + 60)
     ON CONFLICT (order_id) DO UPDATE SET lease_until_ms = EXCLUDED.lease_until_ms
       WHERE NOT receipt_leases.sent AND receipt_leases.lease_until_ms < (extract(epoch FROM now()) * 1000)::bigint
     RETURNING order_id`,
    [msg.orderId],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_leases WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_leases SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
