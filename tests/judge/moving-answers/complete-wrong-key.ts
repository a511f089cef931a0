// expect: wrong
// kind: wrong-key
// why: the claim is taken on the order and e-mail but completed on a key of the order alone, so the claimed row never becomes done; once its 60 s lease runs out a redelivery takes it over and looks the address up again, after the answer has moved.
import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, opKey('deliverability-check', { orderId: msg.orderId }), answer);
  return answer;
}
