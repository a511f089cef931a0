// expect: wrong
// kind: result-ignored
// why: a delivery that finds the check claimed but not done looks up on its own instead of coming back later, so a concurrent delivery can hand on a different answer.
import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned && c.done) return c.result as LookupResult;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  if (c.owned) await complete(env.db, key, answer);
  return answer;
}
