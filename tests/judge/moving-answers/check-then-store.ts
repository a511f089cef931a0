// expect: wrong
// kind: check-then-act
// why: two deliveries that both find nothing stored both look up and each returns its own answer (the INSERT's conflict is ignored), so the CRM can hear two.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId });
  const stored = await env.db.query<{ result: LookupResult }>('SELECT result FROM operations WHERE op_key = $1', [key]);
  if (stored.rows.length > 0) return stored.rows[0].result;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2) ON CONFLICT DO NOTHING`,
    [key, JSON.stringify(answer)],
  );
  return answer;
}
