// expect: right
// kind: advisory-lock
// why: an unlocked read only short-cuts a stored answer; the decision is the read made after pg_advisory_xact_lock on the key, which in READ COMMITTED takes a fresh snapshot, so a delivery that waited for the lock finds the first one's committed answer and hands it on instead of looking up again.
import { opKey, withTransaction, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  return withTransaction(env.db, async (tx) => {
    const stored = `SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`;
    // Fast path: a replay finds the answer without waiting for anyone.
    const quick = await tx.query<{ result: LookupResult }>(stored, [key]);
    if (quick.rows.length > 0) return quick.rows[0].result;
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    const again = await tx.query<{ result: LookupResult }>(stored, [key]);
    if (again.rows.length > 0) return again.rows[0].result;
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
       ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
      [key, JSON.stringify(answer)],
    );
    return answer;
  });
}
