// expect: wrong
// kind: lease
// why: claim, lookup and stored answer share one transaction, but the claim's ON CONFLICT … DO UPDATE is guarded by NOT EXISTS over a CTE read from the statement's snapshot, not by the conflicting row: a second delivery whose INSERT waited for the first's uncommitted claim finds the CTE empty once it commits and takes over the now-done check, looks up again after the data moved and tells the CRM a second answer.
import { opKey, withTransaction, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  // One transaction: a crash anywhere rolls the claim back with it, so no lease can strand the check.
  return withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query(
      `WITH cur AS (SELECT state, lease_until FROM operations WHERE op_key = $1)
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
         WHERE NOT EXISTS (SELECT 1 FROM cur WHERE cur.state = 'done' OR cur.lease_until >= now())
       RETURNING op_key`,
      [key],
    );
    if (!rows.length) {
      const s = await tx.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
      return s.rows[0]?.state === 'done' ? (s.rows[0].result as LookupResult) : 'retry-later';
    }
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await tx.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(answer)]);
    return answer;
  });
}
