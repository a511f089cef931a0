// expect: right
// kind: compare-and-set
// why: an UPDATE that re-checks the lease (its row count checked) hands the lookup to one delivery at a time, and a done check is answered from its stored result.
import { opKey, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const took = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now() RETURNING op_key`,
    [key],
  );
  if (took.rows.length !== 1) {
    const row = await env.db.query<{ state: string; result: LookupResult }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? row.rows[0].result : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
