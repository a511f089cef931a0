// expect: wrong
// kind: lease
// why: the claim's lease is 3 s because "the lookup answers in well under a second", but its timeout is 5 s: a slow lookup outlives the lease, a second delivery takes the claim over and looks up again after the data moved, and the CRM hears two different answers.
import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 3);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
