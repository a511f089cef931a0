// expect: right
// kind: compare-and-set
// why: is_duplicate(k) claims with one INSERT … ON CONFLICT DO UPDATE … WHERE (not done, lease run out) RETURNING … INTO and answers false only when that upsert took the row; the handler calls it in a short transaction (SET LOCAL lock_timeout) that commits before the lookup, so on PostgreSQL only the worker that got false looks up, and a finished key serves its stored answer.
import { opKey, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION is_duplicate(k text) RETURNS boolean
  LANGUAGE plpgsql AS $fn$
  DECLARE
    got text;
  BEGIN
    INSERT INTO operations AS o (op_key, state, lease_until)
    VALUES (k, 'running', now() + interval '60 seconds')
    ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
      WHERE o.state <> 'done' AND o.lease_until < now()
    RETURNING o.op_key INTO got;
    RETURN got IS NULL;
  END
  $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END
$install$`;

async function duplicate(env: Env, key: string): Promise<boolean> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL lock_timeout = '5s'`);
    const { rows } = await c.query<{ dup: boolean }>('SELECT is_duplicate($1) AS dup', [key]);
    await c.query('COMMIT');
    return rows[0]?.dup !== false;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  await env.db.query(INSTALL);
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  if (await duplicate(env, key)) {
    const { rows } = await env.db.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? (rows[0].result as LookupResult) : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
