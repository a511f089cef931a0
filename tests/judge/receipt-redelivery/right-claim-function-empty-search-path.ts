// expect: right
// kind: compare-and-set
// why: the solution's one-statement claim (INSERT … ON CONFLICT DO UPDATE … WHERE not done AND lease expired … RETURNING) in a SQL function hardened the way PostgreSQL's docs advise (SET search_path = '' and schema-qualified names); now() there is pg_catalog.now(), the transaction's start, so the 60 s lease works as in the solution and the send carries the key.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
CREATE OR REPLACE FUNCTION public.claim_op(k text, lease_secs integer) RETURNS TABLE (owned boolean, state text)
LANGUAGE sql SET search_path = '' AS $fn$
  WITH ins AS (
    INSERT INTO public.operations (op_key, state, lease_until)
    VALUES (k, 'running', now() + make_interval(secs => lease_secs))
    ON CONFLICT (op_key) DO UPDATE
      SET state = 'running', lease_until = EXCLUDED.lease_until
      WHERE public.operations.state <> 'done' AND public.operations.lease_until < now()
    RETURNING op_key
  )
  SELECT EXISTS (SELECT 1 FROM ins),
         (SELECT o.state FROM public.operations o WHERE o.op_key = k)
$fn$`;

let installed = false;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  if (!installed) {
    try {
      await env.db.query(INSTALL);
    } catch {
      // another worker replaced it at the same moment: it is there either way
    }
    installed = true;
  }
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ owned: boolean; state: string | null }>('SELECT * FROM public.claim_op($1, 60)', [key]);
  const r = rows[0];
  if (!r?.owned) return r?.state === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
