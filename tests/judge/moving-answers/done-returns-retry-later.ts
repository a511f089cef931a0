// expect: wrong
// kind: result-ignored
// why: a delivery that does not own the claim answers 'retry-later' even when the check is done, so after a crash before the ack every redelivery finds the stored answer, never hands it on and the message is never acknowledged.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
