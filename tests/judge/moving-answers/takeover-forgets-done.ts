// expect: wrong
// kind: lease
// why: the hand-written claim's DO UPDATE … WHERE tests only that the lease ran out, not that the row is still running, so a redelivery after 60 s takes over a done check and looks the address up again after the answer has moved.
import { opKey, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const took = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE operations.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (took.rows.length === 0) {
    const row = await env.db.query<{ state: string; result: LookupResult }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? row.rows[0].result : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
