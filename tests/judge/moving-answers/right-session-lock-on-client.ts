// expect: right
// kind: advisory-lock
// why: one client holds a session advisory lock on the check's key (unlocked in a finally, on the same connection) while it reads the stored answer or makes the lookup and stores it, so a second delivery waits and then returns the first answer.
import { opKey, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const client = await env.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      const { rows } = await client.query<{ result: LookupResult }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
      if (rows.length) return rows[0]!.result;
      const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
         ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
        [key, JSON.stringify(answer)],
      );
      return answer;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    client.release();
  }
}
