// expect: right
// kind: own-dedupe-table
// why: a table of our own keyed by order id is claimed by one upsert that inserts or takes over only a not-sent row whose lease ran out and returns the row only to the worker that claimed it, so two concurrent deliveries never both send.
import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS receipt_claims (
       order_id bigint PRIMARY KEY, sent boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL)`,
  );
  const claimed = await env.db.query(
    `INSERT INTO receipt_claims (order_id, lease_until) VALUES ($1, now() + interval '60 seconds')
     ON CONFLICT (order_id) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE NOT receipt_claims.sent AND receipt_claims.lease_until < now()
     RETURNING order_id`,
    [msg.orderId],
  );
  if (!claimed.rows.length) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_claims WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_claims SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
