// expect: wrong
// kind: memory-cache
// why: a Map in the module is one process's memory: the other worker and a restarted one look the address up afresh and can hand the CRM another answer.
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

const answers = new Map<number, LookupResult>();

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const known = answers.get(msg.orderId);
  if (known) return known;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  answers.set(msg.orderId, answer);
  return answer;
}
