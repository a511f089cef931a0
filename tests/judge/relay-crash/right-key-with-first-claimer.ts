// expect: right
// kind: stored-key
// why: its own table records which worker first claimed the order (written by the INSERT, never by a takeover) and the provider key is the order with that stored name, read back in the claim's RETURNING: a replica or a restarted worker that takes the claim over after a crash sends under the very key the first send used.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_sends (
    order_id bigint PRIMARY KEY, first_worker text NOT NULL, sent boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL)`);
  const mine = await env.db.query<{ first_worker: string }>(
    `INSERT INTO receipt_sends (order_id, first_worker, lease_until) VALUES ($1, $2, now() + interval '60 seconds')
     ON CONFLICT (order_id) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE NOT receipt_sends.sent AND receipt_sends.lease_until < now()
     RETURNING first_worker`,
    [msg.orderId, env.process],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_sends WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  // the provider's log says which worker started this receipt
  const key = `${opKey('receipt-email', { orderId: msg.orderId })}:${mine.rows[0]!.first_worker}`;
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query('UPDATE receipt_sends SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
