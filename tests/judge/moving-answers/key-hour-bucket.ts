// expect: wrong
// kind: wrong-key
// why: the key holds the hour of the delivery, so a redelivery that crosses the hour (a worker crashing at 09:59:50, the message back 30 s later) claims a new key, looks up again after the data moved and hands the CRM a second answer.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', {
    orderId: msg.orderId,
    email: msg.customer,
    hour: new Date(env.clock.now()).toISOString().slice(0, 13),   // answers are good for an hour
  });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
