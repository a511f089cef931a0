// expect: right
// kind: cte
// why: one data-modifying CTE inserts the check's key or takes over an expired unfinished claim, so one delivery at a time looks up; the first answer is stored and every later delivery hands on the stored one.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const won = await env.db.query(
    `WITH taken AS (
       UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now()
       RETURNING op_key
     ), made AS (
       INSERT INTO operations (op_key, state, lease_until)
       SELECT $1, 'running', now() + interval '60 seconds'
       WHERE NOT EXISTS (SELECT 1 FROM operations WHERE op_key = $1)
       ON CONFLICT (op_key) DO NOTHING
       RETURNING op_key
     )
     SELECT op_key FROM taken UNION ALL SELECT op_key FROM made`,
    [key],
  );
  if (won.rows.length === 0) {
    const row = await env.db.query<{ state: string; result: LookupResult }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? row.rows[0].result : 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(answer)]);
  return answer;
}
