// expect: right
// kind: advisory-lock
// why: every write of the key happens under pg_advisory_xact_lock(hashtext(key)), taken first in its transaction: the claim transaction reads state and lease after the lock (a fresh READ COMMITTED snapshot, so a worker that waited sees the winner's committed claim) and the completion takes the same lock; the unlocked read before is only a fast path for "done".
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

type Client = Awaited<ReturnType<Env['db']['connect']>>;

/** Runs `body` in a transaction that first takes the key's transaction-level advisory lock. */
async function underKeyLock<T>(env: Env, key: string, body: (c: Client) => Promise<T>): Promise<T> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
      const out = await body(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const fast = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
  if (fast.rows[0]?.state === 'done') return 'ack';
  const verdict = await underKeyLock(env, key, async (c) => {
    const { rows } = await c.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row && row.state === 'done') return 'done' as const;
    if (row && !row.expired) return 'busy' as const;
    await c.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine' as const;
  });
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await underKeyLock(env, key, (c) =>
    c.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent ?? null)]),
  );
  return 'ack';
}
