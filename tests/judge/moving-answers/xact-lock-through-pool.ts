// expect: wrong
// kind: pool-client-mixup
// why: pg_advisory_xact_lock is taken through env.db.query outside any transaction, so it ends with that statement; the "stored answer?" read, the lookup and the store that follow are unprotected, and two deliveries at once both find nothing, both look up on either side of the data moving and each hands the CRM its own answer.
import { opKey } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await env.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
  const { rows } = await env.db.query<{ result: LookupResult }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
  if (rows[0]) return rows[0].result;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO NOTHING`,
    [key, JSON.stringify(answer)],
  );
  return answer;
}
