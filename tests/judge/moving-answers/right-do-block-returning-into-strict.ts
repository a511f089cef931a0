// expect: right
// kind: compare-and-set
// why: inside one transaction, after a fast-path read for a stored answer, a DO block claims with INSERT … ON CONFLICT DO UPDATE … WHERE (not done, lease run out) RETURNING … INTO STRICT, which raises no_data_found (P0002) when the upsert took no row and aborts the transaction, so on PostgreSQL only the worker whose claim took the row commits and looks up, after COMMIT.
import { opKey, complete } from 'effectively-once';
import type { Env, LookupResult, ReceiptMessage } from 'effectively-once';

// DO takes no parameters: the key travels in a transaction-local setting.
const CLAIM = `DO $claim$
DECLARE
  got text;
BEGIN
  INSERT INTO operations AS o (op_key, state, lease_until)
  VALUES (current_setting('check.key'), 'running', now() + interval '60 seconds')
  ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
    WHERE o.state <> 'done' AND o.lease_until < now()
  RETURNING o.op_key INTO STRICT got;
END
$claim$`;

type Decision = { go: 'lookup' } | { go: 'answer'; answer: LookupResult } | { go: 'later' };

async function decide(env: Env, key: string): Promise<Decision> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const seen = await c.query<{ state: string; result: unknown }>('SELECT state, result FROM operations WHERE op_key = $1', [key]);
    if (seen.rows[0]?.state === 'done') {
      await c.query('COMMIT');
      return { go: 'answer', answer: seen.rows[0].result as LookupResult };
    }
    await c.query(`SELECT set_config('check.key', $1, true)`, [key]);
    try {
      await c.query(CLAIM);
    } catch (err) {
      if ((err as { code?: string }).code !== 'P0002') throw err;
      await c.query('ROLLBACK');
      return { go: 'later' };
    }
    await c.query('COMMIT');
    return { go: 'lookup' };
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function checkCustomer(msg: ReceiptMessage, env: Env) {
  const key = opKey('deliverability-check', { orderId: msg.orderId, email: msg.customer });
  const d = await decide(env, key);
  if (d.go === 'answer') return d.answer;
  if (d.go === 'later') return 'retry-later';
  const answer = await env.lookup.check({ kind: 'email-deliverability', value: msg.customer });
  await complete(env.db, key, answer);
  return answer;
}
