// expect: wrong
// kind: result-ignored
// why: every delivery looks up again and overwrites the stored answer with its own, so a redelivery hands the CRM whatever the lookup says now.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId });
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET result = EXCLUDED.result`,
    [key, JSON.stringify(answer)],
  );
  return answer;
}
