// expect: right
// kind: first-writer-wins
// why: every delivery that finds no stored answer looks up first (a lookup changes nothing), then claims the check with the lib's 60 s lease: only the delivery that owns the claim stores its answer and hands it on, one that finds the check done hands on the stored answer, and one that finds it claimed comes back later, so the CRM only ever hears the one stored answer.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const { rows } = await env.db.query<{ result: LookupResult }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
  if (rows[0]) return rows[0].result;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  await complete(env.db, key, answer);
  return answer;
}
