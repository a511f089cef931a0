// expect: right
// kind: compare-and-set
// why: the check's row is upserted with a no-op update and `RETURNING xmax = 0` tells the delivery that inserted it from the others; only that delivery (or one taking over an expired unfinished claim with a guarded UPDATE) looks the customer up, and everyone else is served the stored first answer or tries later.
import { opKey, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const { rows } = await env.db.query<{ fresh: boolean; state: string; result: LookupResult | null; expired: boolean }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET op_key = EXCLUDED.op_key
     RETURNING (xmax = 0) AS fresh, state, result, lease_until < now() AS expired`,
    [key],
  );
  const row = rows[0]!;
  if (!row.fresh) {
    if (row.state === 'done') return row.result as LookupResult;
    if (!row.expired) return 'retry-later';
    const taken = await env.db.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state <> 'done' AND lease_until < now() RETURNING op_key`,
      [key],
    );
    if (taken.rows.length === 0) return 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
