// expect: right
// kind: compare-and-set
// why: inside a short transaction the key's state is read only as a fast path for "done"; the decision is a plpgsql function whose one INSERT … ON CONFLICT DO UPDATE … WHERE (not done, lease run out) RETURNING … INTO decides 'owned' (else it reports the row's state), so on PostgreSQL only the worker whose upsert took the row commits 'owned' and sends, after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const INSTALL = `
DO $install$
BEGIN
  CREATE FUNCTION take_receipt(k text) RETURNS text
  LANGUAGE plpgsql AS $fn$
  DECLARE
    got text;
    st text;
  BEGIN
    INSERT INTO operations AS o (op_key, state, lease_until)
    VALUES (k, 'running', now() + interval '60 seconds')
    ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
      WHERE o.state <> 'done' AND o.lease_until < now()
    RETURNING op_key INTO got;
    IF got IS NOT NULL THEN
      RETURN 'owned';
    END IF;
    SELECT state INTO st FROM operations WHERE op_key = k;
    RETURN coalesce(st, 'running');
  END
  $fn$;
EXCEPTION WHEN duplicate_function OR unique_violation THEN
  NULL;
END
$install$`;

async function decide(env: Env, key: string): Promise<string | undefined> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL lock_timeout = '5s'`);
    const seen = await c.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (seen.rows[0]?.state === 'done') {
      await c.query('COMMIT');
      return 'done';
    }
    const { rows } = await c.query<{ verdict: string }>('SELECT take_receipt($1) AS verdict', [key]);
    await c.query('COMMIT');
    return rows[0]?.verdict;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.db.query(INSTALL);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await decide(env, key);
  if (verdict === 'done') return 'ack';
  if (verdict !== 'owned') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
