// expect: wrong
// kind: done-before-effect
// why: the check is marked done before its answer is stored, so a crash in between leaves a done check with no answer, and every redelivery has nothing to hand on.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId });
  const first = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING RETURNING op_key`,
    [key],
  );
  if (first.rows.length === 0) {
    const stored = await env.db.query<{ result: LookupResult | null }>('SELECT result FROM operations WHERE op_key = $1', [key]);
    return stored.rows[0]?.result ?? 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query('UPDATE operations SET result = $2 WHERE op_key = $1', [key, JSON.stringify(answer)]);
  return answer;
}
