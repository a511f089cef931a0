// expect: wrong
// kind: sql-newer-than-15
// why: the claim function jitters the lease with random(min, max), which only PostgreSQL 17 has; PL/pgSQL checks that at the first call, so on PostgreSQL 15 every claim fails with 42883 and no receipt is ever sent.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
CREATE OR REPLACE FUNCTION claim_receipt(k text) RETURNS text
LANGUAGE plpgsql AS $fn$
DECLARE
  got text;
BEGIN
  -- 60-70 s lease, jittered so takeovers of a batch of dead claims spread out
  INSERT INTO operations (op_key, state, lease_until)
  VALUES (k, 'running', now() + make_interval(secs => random(60, 70)))
  ON CONFLICT (op_key) DO UPDATE
    SET state = 'running', lease_until = EXCLUDED.lease_until
    WHERE operations.state <> 'done' AND operations.lease_until < now()
  RETURNING op_key INTO got;
  IF got IS NOT NULL THEN
    RETURN 'owned';
  END IF;
  RETURN (SELECT state FROM operations WHERE op_key = k);
END
$fn$`;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  try {
    await env.db.query(INSTALL);
  } catch {
    // replaced concurrently by the other worker: it is there
  }
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ v: string }>('SELECT claim_receipt($1) AS v', [key]);
  if (rows[0]?.v === 'done') return 'ack';
  if (rows[0]?.v !== 'owned') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
