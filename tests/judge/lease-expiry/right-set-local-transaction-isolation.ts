// expect: right
// kind: compare-and-set
// why: each claim transaction switches itself to SERIALIZABLE with SET LOCAL transaction_isolation (documented as equivalent to SET TRANSACTION, and legal as the first statement), reads the key's row, then inserts it or takes an expired unfinished one over; two overlapping claims cannot both commit (40001 for one, retried with a fresh read), the lease is on the database's clock, the transaction commits before the send, and a done key is acknowledged.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Verdict = 'mine' | 'done' | 'busy';

async function claimOnce(env: Env, key: string): Promise<Verdict> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL transaction_isolation = 'serializable'`);
    const { rows } = await c.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    let verdict: Verdict = 'busy';
    if (row?.state === 'done') verdict = 'done';
    else if (!row || row.expired) {
      await c.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
        [key],
      );
      verdict = 'mine';
    }
    await c.query('COMMIT');
    c.release();
    return verdict;
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
}

async function claimWithRetry(env: Env, key: string): Promise<Verdict> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await claimOnce(env, key);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if ((code !== '40001' && code !== '23505') || attempt === 3) throw err;
    }
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await claimWithRetry(env, key);
  if (verdict === 'done') return 'ack';
  if (verdict === 'busy') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
