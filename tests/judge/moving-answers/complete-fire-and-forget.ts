// expect: wrong
// kind: done-late
// why: the stored answer is written without awaiting it, so a crash right after the handler returns (before the ack) can lose it; the redelivery, once the lease runs out, looks up again and the CRM hears a second answer.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  // Don't make the CRM wait on our bookkeeping.
  void complete(env.db, key, answer).catch(() => undefined);
  return answer;
}
