// expect: right
// kind: compare-and-set
// why: the claim is one INSERT … ON CONFLICT DO UPDATE … WHERE (not done, lease run out) RETURNING the new lease, read and committed first; the work transaction only re-reads the worker's own row to check its lease is still the one it took (a fencing token) and stores the answer with an UPDATE fenced on that lease, its row count read, so one answer is ever stored and served.
import { opKey, withTransaction } from 'effectively-once';
import type { DbClient, Env, LookupResult, ReceiptMessage } from 'effectively-once';

/** Every statement of ours runs in a short transaction with a statement timeout (the team's helper). */
function inTx<T>(env: Env, fn: (c: DbClient) => Promise<T>): Promise<T> {
  return withTransaction(env.db, async (c) => {
    await c.query(`SET LOCAL statement_timeout = '5s'`);
    return fn(c);
  });
}

async function stored(env: Env, key: string): Promise<LookupResult | 'retry-later'> {
  const { rows } = await env.db.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
  return rows[0]?.state === 'done' ? (rows[0].result as LookupResult) : 'retry-later';
}

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });

  // 1. Claim: the token is the lease this claim wrote (text, to compare exactly).
  const token = await inTx(env, async (c) => {
    const { rows } = await c.query<{ token: string }>(
      `INSERT INTO operations AS o (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
         WHERE o.state <> 'done' AND o.lease_until < now()
       RETURNING lease_until::text AS token`,
      [key],
    );
    return rows[0]?.token ?? null;
  });
  if (token === null) return stored(env, key);

  // 2. Work: still ours? then look up and store, fenced on our token.
  const outcome = await inTx(env, async (c) => {
    const { rows } = await c.query<{ mine: boolean }>(
      `SELECT state = 'running' AND lease_until::text = $2 AS mine FROM operations WHERE op_key = $1`,
      [key, token],
    );
    if (rows[0]?.mine !== true) return null;
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    const done = await c.query(
      `UPDATE operations SET state = 'done', result = $3 WHERE op_key = $1 AND state = 'running' AND lease_until::text = $2`,
      [key, token, JSON.stringify(answer ?? null)],
    );
    return done.rowCount === 1 ? answer : null;
  });
  return outcome ?? stored(env, key);
}
