// expect: wrong
// kind: check-then-act
// why: each delivery first bumps a per-order poison counter (an upsert … WHERE attempts < 10 RETURNING, which in autocommit locks nothing past its own statement), then decides in a transaction by a plain SELECT and an INSERT … ON CONFLICT DO NOTHING whose answer is never read; on PostgreSQL two overlapping deliveries both find no claim, both look up across the minute the data moves, and the CRM hears two answers.
import { opKey, complete, type Env, type LookupResult, type ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });

  // Poison-message guard: give up on an order after ten deliveries.
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS check_attempts (order_id integer PRIMARY KEY, attempts integer NOT NULL)`,
  );
  const bumped = await env.db.query<{ attempts: number }>(
    `INSERT INTO check_attempts (order_id, attempts) VALUES ($1, 1)
     ON CONFLICT (order_id) DO UPDATE SET attempts = check_attempts.attempts + 1
       WHERE check_attempts.attempts < 10
     RETURNING attempts`,
    [msg.orderId],
  );
  if (bumped.rows.length === 0) throw new Error(`order ${msg.orderId}: too many deliveries, giving up`);

  const client = await env.db.connect();
  let decision: { stored: LookupResult } | 'retry-later' | 'mine';
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string; result: LookupResult; live: boolean }>(
      'SELECT state, result, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') decision = { stored: rows[0].result };
    else if (rows[0]?.live) decision = 'retry-later';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
        [key],
      );
      decision = 'mine';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (decision === 'retry-later') return 'retry-later';
  if (decision !== 'mine') return decision.stored;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
