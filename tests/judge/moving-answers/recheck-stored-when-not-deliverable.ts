// expect: wrong
// kind: done-late
// why: a replay serves the stored answer only when it said "deliverable" and otherwise looks the address up again and overwrites it, so after the data moves (09:01:00) the redelivery tells the CRM a different verdict than the first handling did.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) {
    if (!c.done) return 'retry-later';
    const stored = c.result as LookupResult;
    // a good verdict is final; a bad one may have been transient, so give the address another chance
    if (stored?.verdict === 'deliverable') return stored;
    const again = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await complete(env.db, key, again);
    return again;
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
