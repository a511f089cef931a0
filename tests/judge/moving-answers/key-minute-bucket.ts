// expect: wrong
// kind: wrong-key
// why: a redelivery in the next minute has another key, finds nothing stored and looks up again, so the CRM hears the moved answer.
import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, minute: Math.floor(env.clock.now() / 60_000) });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
