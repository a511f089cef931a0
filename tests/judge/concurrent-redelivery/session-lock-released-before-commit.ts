// expect: wrong
// kind: check-then-act
// why: the helpers nest the wrong way round, inTransaction(withSessionLock(…)): the session advisory lock is let go when the body returns, before COMMIT, so a second worker gets the lock, reads with a snapshot that cannot see the first worker's uncommitted claim, its upsert waits and then overwrites it, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Client = Awaited<ReturnType<Env['db']['connect']>>;

/** Holds a session advisory lock on `key` for the duration of `body` (released even if it throws). */
async function withSessionLock<T>(client: Client, key: string, body: () => Promise<T>): Promise<T> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
  try {
    return await body();
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
  }
}

/** BEGIN … COMMIT around `body` (ROLLBACK if it throws). */
async function inTransaction<T>(client: Client, body: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const out = await body();
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy';
  try {
    verdict = await inTransaction(client, () =>
      withSessionLock(client, key, async () => {
        const { rows } = await client.query<{ state: string; expired: boolean }>(
          'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
          [key],
        );
        const row = rows[0];
        if (row && row.state === 'done') return 'done';
        if (row && !row.expired) return 'busy';
        await client.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
          [key],
        );
        return 'mine';
      }),
    );
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
