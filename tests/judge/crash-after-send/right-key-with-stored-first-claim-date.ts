// expect: right
// kind: stored-key
// why: its own table keeps, with the claim, the date of the first claim (written once by the INSERT and never by the takeover), and the provider key is the order with that stored date, read back in the claim's RETURNING: every takeover, the next morning included, sends under the same key within the provider's 24 h.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_sends (
    order_id bigint PRIMARY KEY, first_claimed_on date NOT NULL, sent boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL)`);
  const mine = await env.db.query<{ first_claimed_on: string }>(
    `INSERT INTO receipt_sends (order_id, first_claimed_on, lease_until) VALUES ($1, current_date, now() + interval '60 seconds')
     ON CONFLICT (order_id) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE NOT receipt_sends.sent AND receipt_sends.lease_until < now()
     RETURNING to_char(first_claimed_on, 'YYYY-MM-DD') AS first_claimed_on`,
    [msg.orderId],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_sends WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  const key = opKey('receipt-email', { orderId: msg.orderId, firstClaimedOn: mine.rows[0]!.first_claimed_on });
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query('UPDATE receipt_sends SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
