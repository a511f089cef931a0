// expect: wrong
// kind: check-then-act
// why: the delivery that wins pg_try_advisory_xact_lock on the key looks up once and stores the answer, but one that finds the lock taken "does not make the CRM wait" and looks up on its own without storing: on PostgreSQL a second delivery while the first is still looking up asks after the data moved, and the CRM hears two answers.
import { opKey, withTransaction, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  return withTransaction(env.db, async (tx) => {
    const lock = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [key]);
    if (!lock.rows[0]?.got) {
      // Someone is on it right now; answer from the source rather than wait.
      return env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    }
    const stored = await tx.query<{ result: LookupResult }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
    if (stored.rows.length > 0) return stored.rows[0].result;
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
       ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
      [key, JSON.stringify(answer)],
    );
    return answer;
  });
}
