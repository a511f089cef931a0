// expect: right
// kind: advisory-lock
// why: inside one transaction pg_advisory_xact_lock on the order serialises the deliveries: each reads the stored answer under the lock and only the first, finding none, looks up and stores it; a crash rolls back and frees the lock, so every delivery hands on the one stored answer.
import { type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = `deliverability-check:${msg.orderId}:${msg.customer}`;
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    const stored = await client.query<{ result: LookupResult }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
    let answer: LookupResult;
    if (stored.rows.length > 0) {
      answer = stored.rows[0].result;
    } else {
      answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)`,
        [key, JSON.stringify(answer)],
      );
    }
    await client.query('COMMIT');
    return answer;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
