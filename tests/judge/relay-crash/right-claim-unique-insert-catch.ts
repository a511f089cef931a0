// expect: right
// kind: own-dedupe-table
// why: a table of its own with the order id as primary key: a plain INSERT is the claim (23505 means someone has it), a takeover of a stale unfinished row is one UPDATE … WHERE … RETURNING, and the provider gets the order's key, so a republished or redelivered message never sends twice.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS receipts_sent (order_id bigint PRIMARY KEY, sent boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL)`,
  );
  let mine = false;
  try {
    await env.db.query(`INSERT INTO receipts_sent (order_id, lease_until) VALUES ($1, now() + interval '60 seconds')`, [msg.orderId]);
    mine = true;
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
  }
  if (!mine) {
    const took = await env.db.query(
      `UPDATE receipts_sent SET lease_until = now() + interval '60 seconds'
       WHERE order_id = $1 AND NOT sent AND lease_until < now() RETURNING order_id`,
      [msg.orderId],
    );
    if (took.rows.length === 0) {
      const r = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipts_sent WHERE order_id = $1', [msg.orderId]);
      return r.rows[0]?.sent ? 'ack' : 'retry-later';
    }
  }
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query('UPDATE receipts_sent SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
