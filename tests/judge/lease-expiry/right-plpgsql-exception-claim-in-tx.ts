// expect: right
// kind: compare-and-set
// why: a plpgsql function claims with a plain INSERT and, on unique_violation in its EXCEPTION block (a subtransaction), locks the existing row FOR UPDATE and takes it over only when unfinished and its lease ran out by now(); the handler calls it inside a short transaction that commits before the send, so one worker at a time holds the key and a done key is acknowledged.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION claim_receipt_key(k text) RETURNS text
  LANGUAGE plpgsql AS $fn$
  DECLARE
    st text;
    expired boolean;
  BEGIN
    BEGIN
      INSERT INTO operations (op_key, state, lease_until) VALUES (k, 'running', now() + interval '60 seconds');
      RETURN 'owned';
    EXCEPTION WHEN unique_violation THEN
      SELECT state, lease_until < now() INTO st, expired FROM operations WHERE op_key = k FOR UPDATE;
    END;
    IF st = 'done' THEN RETURN 'done'; END IF;
    IF expired THEN
      UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = k;
      RETURN 'owned';
    END IF;
    RETURN 'busy';
  END
  $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END
$install$`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(INSTALL);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await env.db.connect();
  let verdict: string | undefined;
  try {
    await c.query('BEGIN');
    const { rows } = await c.query<{ verdict: string }>('SELECT claim_receipt_key($1) AS verdict', [key]);
    verdict = rows[0]?.verdict;
    await c.query('COMMIT');
    c.release();
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
  if (verdict === 'done') return 'ack';
  if (verdict !== 'owned') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
