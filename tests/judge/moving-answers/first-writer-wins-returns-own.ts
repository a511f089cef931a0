// expect: wrong
// kind: result-ignored
// why: the first answer stored wins (INSERT … ON CONFLICT DO NOTHING), but each delivery hands on the answer of its own lookup whether or not its insert won, so two deliveries that look up on either side of the data moving tell the CRM two different things.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const stored = await env.db.query<{ result: LookupResult }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
  if (stored.rows[0]) return stored.rows[0].result;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  // First writer wins: a later answer never overwrites the stored one.
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO NOTHING`,
    [key, JSON.stringify(answer)],
  );
  return answer;
}
