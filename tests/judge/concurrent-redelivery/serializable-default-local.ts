// expect: wrong
// kind: check-then-act
// why: SET LOCAL default_transaction_isolation only sets the default for transactions that begin later (and LOCAL undoes even that at COMMIT), so this transaction stays READ COMMITTED: two overlapping workers both read "no row", both INSERT … ON CONFLICT DO NOTHING without reading it, both commit and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

/** Runs `body` in a SERIALIZABLE transaction on a client of its own; a serialization failure answers 'busy'. */
async function serializable<T>(env: Env, body: (q: (sql: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>) => Promise<T>): Promise<T | 'busy'> {
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL default_transaction_isolation = 'serializable'`);
    try {
      const out = await body((sql, params) => client.query(sql, params));
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK');
      const code = (err as { code?: string }).code;
      if (code === '40001' || code === '23505') return 'busy';
      throw err;
    }
  } finally {
    client.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await serializable(env, async (q) => {
    const { rows } = await q('SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1', [key]);
    const row = rows[0];
    if (row && row.state === 'done') return 'done' as const;
    if (row && !row.expired) return 'busy' as const;
    await q(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine' as const;
  });
  if (c !== 'mine') return c === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
