// expect: wrong
// kind: sql-newer-than-15
// why: the claim table's derived "sent" column is written GENERATED ALWAYS AS (…) without STORED, which only PostgreSQL 18 accepts (virtual generated columns); PostgreSQL 15 rejects the CREATE TABLE with a syntax error, so every delivery fails before it claims and no receipt is ever sent.
import type { Env, ReceiptMessage } from 'effectively-once';

const TABLE = `CREATE TABLE IF NOT EXISTS receipt_claims (
  order_id    bigint PRIMARY KEY,
  state       text NOT NULL,
  lease_until timestamptz NOT NULL,
  sent        boolean GENERATED ALWAYS AS (state = 'sent')
)`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(TABLE);
  const claimed = await env.db.query(
    `INSERT INTO receipt_claims (order_id, state, lease_until) VALUES ($1, 'sending', now() + interval '60 seconds')
     ON CONFLICT (order_id) DO UPDATE SET state = 'sending', lease_until = excluded.lease_until
       WHERE NOT receipt_claims.sent AND receipt_claims.lease_until < now()
     RETURNING order_id`,
    [msg.orderId],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query<{ sent: boolean }>('SELECT sent FROM receipt_claims WHERE order_id = $1', [msg.orderId]);
    return row.rows[0]?.sent ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE receipt_claims SET state = 'sent' WHERE order_id = $1`, [msg.orderId]);
  return 'ack';
}
