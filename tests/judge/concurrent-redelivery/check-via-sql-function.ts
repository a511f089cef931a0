// expect: wrong
// kind: check-then-act
// why: the "already handled?" test lives in a SQL helper function the team installs once, and it is called inside a READ COMMITTED transaction followed by an INSERT … ON CONFLICT DO NOTHING whose answer is never read; the function's SELECT locks nothing, so on PostgreSQL two overlapping transactions both hear "not seen", both commit and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

// Idempotent install: a second installer (or one that loses the race) just finds it there.
const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION receipt_already_handled(k text) RETURNS boolean
    LANGUAGE sql STABLE AS $fn$ SELECT EXISTS (SELECT 1 FROM operations WHERE op_key = k) $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END
$install$`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(INSTALL);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const fresh = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ handled: boolean }>('SELECT receipt_already_handled($1) AS handled', [key]);
    if (rows[0]?.handled) return false;
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    return true;
  });
  if (!fresh) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
