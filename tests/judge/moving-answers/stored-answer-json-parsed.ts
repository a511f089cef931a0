// expect: wrong
// kind: result-ignored
// why: the first answer is stored under a right key, but a replay serves JSON.parse(result) though node-postgres already hands jsonb back parsed: the redelivery after worker-1's crash before its ack throws a SyntaxError on the object instead of returning the stored answer, on every delivery, so m1 is never settled.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (JSON.parse(c.result as string) as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
