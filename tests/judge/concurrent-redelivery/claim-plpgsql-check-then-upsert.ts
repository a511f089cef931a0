// expect: wrong
// kind: check-then-act
// why: the claim is one call of a PL/pgSQL function, but inside it an IF EXISTS check and an INSERT … ON CONFLICT DO UPDATE (no WHERE) are two statements: on PostgreSQL two calls that start together both pass the check before either row is committed, the second INSERT waits for the first's key and then updates it, both return true and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION claim_receipt(k text) RETURNS boolean LANGUAGE plpgsql AS $fn$
  BEGIN
    IF EXISTS (SELECT 1 FROM operations WHERE op_key = k AND (state = 'done' OR lease_until >= now())) THEN
      RETURN false;
    END IF;
    INSERT INTO operations (op_key, state, lease_until) VALUES (k, 'running', now() + interval '60 seconds')
      ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until;
    RETURN true;
  END $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END $install$`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(INSTALL);
  // One statement, so one atomic step: the function decides and claims together.
  const { rows } = await env.db.query<{ owned: boolean }>('SELECT claim_receipt($1) AS owned', [key]);
  if (!rows[0]?.owned) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
