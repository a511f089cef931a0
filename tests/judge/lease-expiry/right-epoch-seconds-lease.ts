// expect: right
// kind: own-dedupe-table
// why: its own table keeps the lease as whole epoch seconds read from the database's clock, and the claim takes over only a row that is not sent and whose lease second has passed, in one INSERT … ON CONFLICT DO UPDATE … WHERE; the 20 s send stays well inside the 60 s lease and no worker's clock is read.
import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_leases (
    order_id bigint PRIMARY KEY, sent boolean NOT NULL DEFAULT false, lease_until_s bigint NOT NULL)`);
  const mine = await env.db.query(
    `INSERT INTO receipt_leases (order_id, lease_until_s) VALUES ($1, extract(epoch FROM now())::bigint + 60)
     ON CONFLICT (order_id) DO UPDATE SET lease_until_s = EXCLUDED.lease_until_s
       WHERE NOT receipt_leases.sent AND receipt_leases.lease_until_s <= extract(epoch FROM now())::bigint
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
