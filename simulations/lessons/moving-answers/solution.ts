import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', {
    orderId: msg.orderId,
    email: msg.customer,
  });
  const c = await claim(env.db, key, 60);
  // A replay is served the stored answer, not a fresh one.
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({
    kind: 'email-deliverability',
    value: msg.customer,
  });
  await complete(env.db, key, answer);        // the first answer, kept
  return answer;
}
