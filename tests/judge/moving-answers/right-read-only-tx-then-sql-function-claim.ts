// expect: right
// kind: compare-and-set
// why: the read-only transaction is only a fast path for a stored answer; the decision is a SQL function whose single INSERT … ON CONFLICT DO UPDATE … WHERE (not done, lease expired) RETURNING true lets one worker alone get true, so only that worker looks up and stores the first answer.
import { opKey, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

const CLAIM_FN = `CREATE FUNCTION claim_check(k text, secs integer) RETURNS boolean LANGUAGE sql AS $fn$
  INSERT INTO operations AS o (op_key, state, lease_until)
  VALUES (k, 'running', now() + make_interval(secs => secs))
  ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
    WHERE o.state <> 'done' AND o.lease_until < now()
  RETURNING true
$fn$`;

/** Install the claim function once; a worker that loses the race to create it just uses it. */
async function ensureClaimFunction(env: Env) {
  const { rows } = await env.db.query<{ f: string | null }>(`SELECT to_regprocedure('claim_check(text, integer)')::text AS f`);
  if (rows[0]?.f) return;
  try {
    await env.db.query(CLAIM_FN);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '42723' && code !== '23505') throw err; // duplicate_function, or the catalog's unique index
  }
}

/** Read a key's state and stored answer in a short READ ONLY transaction (the team's read helper). */
async function readStored(env: Env, key: string) {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN READ ONLY');
    const { rows } = await client.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    await client.query('COMMIT');
    return rows[0] ?? null;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await ensureClaimFunction(env);
  const stored = await readStored(env, key);
  if (stored?.state === 'done') return stored.result as LookupResult;

  const { rows } = await env.db.query<{ won: boolean | null }>('SELECT claim_check($1, 60) AS won', [key]);
  if (rows[0]?.won !== true) {
    const again = await env.db.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return again.rows[0]?.state === 'done' ? (again.rows[0].result as LookupResult) : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
