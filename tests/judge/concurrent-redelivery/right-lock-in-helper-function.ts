// expect: right
// kind: advisory-lock
// why: the transaction first calls a small SQL helper that takes pg_advisory_xact_lock on the key's hash, so every worker's check-and-claim for that key runs one after the other; the waiting worker's SELECT takes a fresh snapshot in READ COMMITTED and sees the first one's committed claim; the send comes after COMMIT and a 60 s lease lets a takeover follow a crash.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

// Idempotent install: a second installer (or one that loses the race) just finds it there.
const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION lock_operation(k text) RETURNS void
    LANGUAGE sql AS $fn$ SELECT pg_advisory_xact_lock(hashtext(k)) $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END
$install$`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(INSTALL);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    await tx.query('SELECT lock_operation($1)', [key]);
    const { rows } = await tx.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return 'ack';
    if (rows[0]?.live) return 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
