// expect: wrong
// kind: memory-cache
// why: a TEMP table belongs to one connection on PostgreSQL, so each worker claims in its own private copy (and a crash drops it): both workers holding the message win their claim and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // A scratch table, so the lesson's schema stays untouched.
  await env.db.query(
    `CREATE TEMP TABLE IF NOT EXISTS receipt_claims (
       op_key text PRIMARY KEY, state text NOT NULL, lease_until timestamptz NOT NULL)`,
  );
  const won = await env.db.query(
    `INSERT INTO receipt_claims (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE receipt_claims.state <> 'done' AND receipt_claims.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (won.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM receipt_claims WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE receipt_claims SET state = 'done' WHERE op_key = $1`, [key]);
  return 'ack';
}
