// expect: right
// kind: first-writer-wins
// why: the lookup is claimed with the lib's lease, and the answer is stored with UPDATE … SET result = COALESCE(result, new) … RETURNING result: whoever stores first fixes the answer, and every delivery, a taker-over included, hands on the stored answer that the UPDATE returned.
import { opKey, claim } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? (c.result as LookupResult) : 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  const { rows } = await env.db.query<{ result: LookupResult }>(
    `UPDATE operations SET state = 'done', result = COALESCE(result, $2::jsonb) WHERE op_key = $1 RETURNING result`,
    [key, JSON.stringify(answer)],
  );
  return rows[0]?.result ?? answer;
}
