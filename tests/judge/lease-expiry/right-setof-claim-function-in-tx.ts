// expect: right
// kind: compare-and-set
// why: the claim is a SQL function RETURNS SETOF operations whose one INSERT … ON CONFLICT DO UPDATE … WHERE (not done, lease run out) RETURNING * gives back the row only to the worker whose upsert took it; called as SELECT * FROM claim_receipt(…) in a short transaction (SET LOCAL statement_timeout) that commits before the send, so on PostgreSQL one worker owns the key per 60 s lease, and a crashed one is taken over.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const CLAIM_FN = `CREATE FUNCTION claim_receipt(k text, secs integer) RETURNS SETOF operations LANGUAGE sql AS $fn$
  INSERT INTO operations AS o (op_key, state, lease_until)
  VALUES (k, 'running', now() + make_interval(secs => secs))
  ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
    WHERE o.state <> 'done' AND o.lease_until < now()
  RETURNING *
$fn$`;

async function ensureClaimFunction(env: Env) {
  const { rows } = await env.db.query<{ f: string | null }>(`SELECT to_regprocedure('claim_receipt(text, integer)')::text AS f`);
  if (rows[0]?.f) return;
  try {
    await env.db.query(CLAIM_FN);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '42723' && code !== '23505') throw err;
  }
}

async function tryClaim(env: Env, key: string): Promise<boolean> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL statement_timeout = '10s'`);
    const { rows } = await c.query<{ op_key: string }>('SELECT op_key, lease_until FROM claim_receipt($1, 60)', [key]);
    await c.query('COMMIT');
    return rows.length === 1;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await ensureClaimFunction(env);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  if (!(await tryClaim(env, key))) {
    const { rows } = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
