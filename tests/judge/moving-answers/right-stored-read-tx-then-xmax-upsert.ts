// expect: right
// kind: compare-and-set
// why: the one statement that decides is the upsert whose (xmax = 0) is true only for the worker whose INSERT created the row (on PostgreSQL the other's conflicting INSERT waits and updates it instead, xmax non-zero), an expired claim is taken by a guarded UPDATE … RETURNING, and only the owner looks up; the read transaction before it only serves stored answers, and the loser's row back (fresh = false, state 'running') is no claim of its own.
import { opKey, complete, withTransaction } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const stored = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? (rows[0].result as LookupResult) : null;
  });
  if (stored) return stored;
  const { rows: [row] } = await env.db.query<{ fresh: boolean; state: string; result: unknown; expired: boolean }>(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET state = operations.state
     RETURNING (xmax = 0) AS fresh, state, result, lease_until < now() AS expired`,
    [key],
  );
  if (!row.fresh) {
    if (row.state === 'done') return row.result as LookupResult;
    if (!row.expired) return 'retry-later';
    const taken = await env.db.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now() RETURNING op_key`,
      [key],
    );
    if (taken.rows.length === 0) return 'retry-later';
  }
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
