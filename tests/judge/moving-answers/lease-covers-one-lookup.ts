// expect: wrong
// kind: lease
// why: the claim's lease is 5 s, the lookup's timeout, but the handler retries a timed-out lookup once after a second, so a slow or lost first lookup keeps the check running for up to 11 s: a second delivery in that time finds the lease expired, takes the claim over and looks up again after the data moved, and each delivery hands the CRM its own answer.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  // The lookup gives up after 5 s, so nobody holds the check longer than that.
  const c = await claim(env.db, key, 5);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  let answer: LookupResult;
  try {
    answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  } catch {
    await env.sleep(1000);
    answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  }
  await complete(env.db, key, answer);
  return answer;
}
