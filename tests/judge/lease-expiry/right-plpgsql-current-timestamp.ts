// expect: right
// kind: compare-and-set
// why: the solution's claim (INSERT … ON CONFLICT DO UPDATE … WHERE not done AND lease_until < CURRENT_TIMESTAMP … RETURNING) inside a plpgsql function; in PL/pgSQL CURRENT_TIMESTAMP is the transaction's start, exactly now(), so the 60 s lease is written and compared on the database's clock and a dead worker's claim is taken over once it runs out.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION try_claim(k text, lease_secs integer) RETURNS text
  LANGUAGE plpgsql AS $fn$
  DECLARE
    got text;
    st text;
  BEGIN
    INSERT INTO operations (op_key, state, lease_until)
    VALUES (k, 'running', CURRENT_TIMESTAMP + lease_secs * interval '1 second')
    ON CONFLICT (op_key) DO UPDATE
      SET state = 'running', lease_until = EXCLUDED.lease_until
      WHERE operations.state <> 'done' AND operations.lease_until < CURRENT_TIMESTAMP
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
  const { rows } = await env.db.query<{ verdict: string }>('SELECT try_claim($1, 60) AS verdict', [key]);
  const verdict = rows[0]?.verdict;
  if (verdict === 'done') return 'ack';
  if (verdict !== 'owned') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
