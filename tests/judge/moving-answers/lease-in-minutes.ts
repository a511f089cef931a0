// expect: wrong
// kind: lease
// why: the lease is meant as one minute but the claim helper takes seconds, so the claim lasts 1 s; a duplicate delivered 2 s into the 4 s lookup finds it expired, takes it over and looks up again, and the two deliveries can answer differently once the data has moved.
import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

const LEASE_MINUTES = 1;

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, LEASE_MINUTES);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
