// expect: wrong
// kind: check-then-act
// why: on PostgreSQL the SELECT in the transaction takes no lock, so two concurrent deliveries both look up and each hands its own answer on.
import { opKey, withTransaction, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId });
  return withTransaction(env.db, async (tx) => {
    const stored = await tx.query<{ result: LookupResult }>('SELECT result FROM operations WHERE op_key = $1', [key]);
    if (stored.rows.length > 0) return stored.rows[0].result;
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2) ON CONFLICT DO NOTHING`,
      [key, JSON.stringify(answer)],
    );
    return answer;
  });
}
