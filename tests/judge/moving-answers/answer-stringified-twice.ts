// expect: wrong
// kind: result-ignored
// why: the answer is stringified before complete(), which stringifies it again, so a replay reads back a JSON string instead of the answer and hands the CRM nothing usable.
import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, JSON.stringify(answer));
  return answer;
}
