// expect: wrong
// kind: swallowed-timeout
// why: a lookup that times out is answered with a made-up "risky" verdict ("better safe than sorry"), which is stored as the check's answer and handed to the CRM, so after one lost response the customer is marked risky for good on the strength of a lookup whose real answer nobody read; a timeout is not an answer and must leave the check to be retried.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  let answer: LookupResult;
  try {
    answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  } catch (err) {
    env.log('lookup timed out, treating the address as risky:', String(err));
    answer = { value: msg.customer, verdict: 'risky', checkedAtMs: env.clock.now() };
  }
  await complete(env.db, key, answer);
  return answer;
}
