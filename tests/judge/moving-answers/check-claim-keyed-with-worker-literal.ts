// expect: wrong
// kind: wrong-key
// why: the claim row's unique key is (order_id, email, taken_by) and taken_by is the worker's name inlined as a literal, so two workers' plain INSERTs never collide; on PostgreSQL both overlapping transactions find no stored answer and no claim, both insert, both look up, and when the data moves between the two lookups the CRM hears two answers.
import { opKey } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS check_claims (
       order_id bigint NOT NULL, email text NOT NULL, taken_by text NOT NULL,
       taken_until timestamptz NOT NULL, UNIQUE (order_id, email, taken_by))`,
  );
  const client = await env.db.connect();
  let verdict: 'mine' | 'busy' | { stored: unknown } = 'busy';
  try {
    await client.query('BEGIN');
    const done = await client.query<{ result: unknown }>(`SELECT result FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
    if (done.rows.length) verdict = { stored: done.rows[0]!.result };
    else {
      await client.query('DELETE FROM check_claims WHERE order_id = $1 AND email = $2 AND taken_until <= now()', [msg.orderId, msg.customer]);
      const live = await client.query(
        'SELECT 1 FROM check_claims WHERE order_id = $1 AND email = $2 AND taken_until > now()',
        [msg.orderId, msg.customer],
      );
      if (live.rows.length === 0) {
        // Record who is checking (handy in the CRM audit), claim for 10 s.
        await client.query(
          `INSERT INTO check_claims (order_id, email, taken_by, taken_until) VALUES ($1, $2, '${env.process}', now() + interval '10 seconds')`,
          [msg.orderId, msg.customer],
        );
        verdict = 'mine';
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    if ((err as { code?: string }).code === '23505') return 'retry-later';
    throw err;
  } finally {
    client.release();
  }
  if (verdict === 'busy') return 'retry-later';
  if (verdict !== 'mine') return verdict.stored as LookupResult;
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(answer ?? null)],
  );
  return answer;
}
