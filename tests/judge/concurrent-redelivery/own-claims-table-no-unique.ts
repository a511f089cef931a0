// expect: wrong
// kind: check-then-act
// why: the claim is one INSERT … SELECT … WHERE NOT EXISTS into a table of its own that has no unique key, so under READ COMMITTED two workers' statements running at once both find no live claim and both insert one: both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS receipt_claims (
       op_key text NOT NULL, claimed_by text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now(), done boolean NOT NULL DEFAULT false)`,
  );
  // One statement: the check and the claim cannot be split by another worker.
  const claimed = await env.db.query(
    `INSERT INTO receipt_claims (op_key, claimed_by)
     SELECT $1::text, $2::text
     WHERE NOT EXISTS (
       SELECT 1 FROM receipt_claims WHERE op_key = $1::text AND (done OR claimed_at > now() - interval '60 seconds'))
     RETURNING op_key`,
    [key, env.process],
  );
  if (claimed.rows.length === 0) {
    const done = await env.db.query('SELECT 1 FROM receipt_claims WHERE op_key = $1 AND done', [key]);
    return done.rows.length ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query('UPDATE receipt_claims SET done = true WHERE op_key = $1 AND claimed_by = $2', [key, env.process]);
  return 'ack';
}
