// expect: right
// kind: row-lock
// why: the key's row (born expired) is read FOR SHARE and, when expired, its lease is moved by a small SQL function (an UPDATE of that row) in the same transaction: two share holders' UPDATEs each wait for the other's share lock and PostgreSQL fails one (40P01, rolled back, retry later), a later reader waits for the COMMIT and sees the fresh lease, so one worker sends, after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

const LEASE_FN = `CREATE FUNCTION extend_lease(k text, secs integer) RETURNS void LANGUAGE sql AS $fn$
  UPDATE operations SET lease_until = now() + make_interval(secs => secs) WHERE op_key = k
$fn$`;

async function ensureLeaseFunction(env: Env) {
  const { rows } = await env.db.query<{ f: string | null }>(`SELECT to_regprocedure('extend_lease(text, integer)')::text AS f`);
  if (rows[0]?.f) return;
  try {
    await env.db.query(LEASE_FN);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '42723' && code !== '23505') throw err;
  }
}

async function decide(env: Env, key: string): Promise<'send' | 'ack' | 'retry-later'> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const { rows } = await c.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR SHARE',
      [key],
    );
    const row = rows[0];
    let d: 'send' | 'ack' | 'retry-later';
    if (row?.state === 'done') d = 'ack';
    else if (!row?.expired) d = 'retry-later';
    else {
      await c.query('SELECT extend_lease($1, 60)', [key]);
      d = 'send';
    }
    await c.query('COMMIT');
    return d;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    const code = (err as { code?: string }).code;
    if (code === '40P01' || code === '40001') return 'retry-later';
    throw err;
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await ensureLeaseFunction(env);
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() - interval '1 second') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const d = await decide(env, key);
  if (d !== 'send') return d;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
