// expect: right
// kind: own-dedupe-table
// why: its own table records when a claim was taken, written as the 'now' literal in the INSERT's VALUES (typed from the timestamptz column, so the transaction's start, as now() is) and in the takeover's SET; a claim older than 60 s that is not sent is taken over in one INSERT … ON CONFLICT DO UPDATE … WHERE.
import type { Env, ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_claims (
    order_id bigint PRIMARY KEY, sent boolean NOT NULL DEFAULT false, claimed_at timestamptz NOT NULL)`);
  const mine = await env.db.query(
    `INSERT INTO receipt_claims (order_id, claimed_at) VALUES ($1, 'now')
     ON CONFLICT (order_id) DO UPDATE SET claimed_at = 'now'
       WHERE NOT receipt_claims.sent AND receipt_claims.claimed_at < now() - interval '60 seconds'
     RETURNING order_id`,
    [msg.orderId],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_claims WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_claims SET sent = true WHERE order_id = $1', [msg.orderId]);
  return 'ack';
}
