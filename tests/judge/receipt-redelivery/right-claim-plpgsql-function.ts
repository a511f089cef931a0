// expect: right
// kind: compare-and-set
// why: the claim is the solution's single INSERT … ON CONFLICT DO UPDATE … WHERE (not done, lease run out) … RETURNING, wrapped in a plpgsql function the handler installs idempotently (a DO block that ignores "already exists"); the function's one statement is as atomic as the bare one, so one worker owns the key at a time, a crashed claim is taken over after 60 s, and the send carries the key.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION claim_receipt(k text, lease_secs integer) RETURNS text
  LANGUAGE plpgsql AS $fn$
  DECLARE
    got text;
    st text;
  BEGIN
    INSERT INTO operations (op_key, state, lease_until)
    VALUES (k, 'running', now() + make_interval(secs => lease_secs))
    ON CONFLICT (op_key) DO UPDATE
      SET state = 'running', lease_until = EXCLUDED.lease_until
      WHERE operations.state <> 'done' AND operations.lease_until < now()
    RETURNING op_key INTO got;
    IF got IS NOT NULL THEN
      RETURN 'owned';
    END IF;
    SELECT state INTO st FROM operations WHERE op_key = k;
    RETURN coalesce(st, 'running');
  END
  $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END
$install$`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(INSTALL);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ verdict: string }>('SELECT claim_receipt($1, 60) AS verdict', [key]);
  const verdict = rows[0]?.verdict;
  if (verdict === 'done') return 'ack';
  if (verdict !== 'owned') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
