// expect: wrong
// kind: check-then-act
// why: PostgreSQL skips a SELECT common table expression the query never references, so pg_advisory_xact_lock is never called; two overlapping deliveries both read "no answer yet", both look up, and the CRM can hear two answers.
import { opKey } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // One round trip: take the per-key lock and read the stored answer.
    const { rows } = await client.query<{ state: string; result: LookupResult }>(
      `WITH _lock AS (SELECT pg_advisory_xact_lock(hashtext($1)))
       SELECT state, result FROM operations WHERE op_key = $1`,
      [key],
    );
    if (rows[0]?.state === 'done') {
      await client.query('COMMIT');
      return rows[0].result;
    }
    const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
       ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
      [key, JSON.stringify(answer)],
    );
    await client.query('COMMIT');
    return answer;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
