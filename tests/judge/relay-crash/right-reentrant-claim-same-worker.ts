// expect: right
// kind: own-dedupe-table
// why: its own table records the claiming worker with a 60 s lease; a claim is taken when the row is new, unsent and expired, or unsent and held under this worker's own name (a worker handles one delivery at a time, so its own live claim was left by its previous life, which crashed), and the provider key is the order's alone, so a resend after a crash is a replay.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_claims (
    order_id bigint PRIMARY KEY, owner text NOT NULL, sent boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL)`);
  const mine = await env.db.query(
    `INSERT INTO receipt_claims (order_id, owner, lease_until) VALUES ($1, $2, now() + interval '60 seconds')
     ON CONFLICT (order_id) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
       WHERE NOT receipt_claims.sent AND (receipt_claims.lease_until < now() OR receipt_claims.owner = EXCLUDED.owner)
     RETURNING order_id`,
    [msg.orderId, env.process],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_claims WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: opKey('receipt-email', { orderId: msg.orderId }) });
  await env.db.query('UPDATE receipt_claims SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
