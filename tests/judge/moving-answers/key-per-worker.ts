// expect: wrong
// kind: wrong-key
// why: the key names the worker as well as the check, so a redelivery handed to the other worker finds no key of its own, looks the address up again after the data moved and tells the CRM a second answer.
import { opKey, claim, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer, worker: env.process });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
