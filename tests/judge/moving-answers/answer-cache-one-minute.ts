// expect: wrong
// kind: lease
// why: the stored answer is kept as a cache that expires with the claim's 60 s lease, after which any delivery takes the key over and looks up again, so a copy of the message delivered after a minute hands the CRM the answer as it is then, which has moved.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  // A claim, or a cached answer, is good for 60 s; after that anyone may (re)do the lookup.
  const took = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', result = NULL, lease_until = now() + interval '60 seconds'
       WHERE operations.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (took.rows.length === 0) {
    const row = await env.db.query<{ state: string; result: LookupResult }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? row.rows[0].result : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(
    `UPDATE operations SET state = 'done', result = $2, lease_until = now() + interval '60 seconds' WHERE op_key = $1`,
    [key, JSON.stringify(answer)],
  );
  return answer;
}
