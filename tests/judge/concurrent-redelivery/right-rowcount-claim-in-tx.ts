// expect: right
// kind: compare-and-set
// why: inside a hand-written transaction the claim is one INSERT … ON CONFLICT DO UPDATE … WHERE expired, without RETURNING: node-postgres' result.rowCount (1 inserted or taken over, 0 not) decides, the transaction commits before the send, so the primary key lets one worker at a time send and a done key is acknowledged.
import { opKey, type DbClient, type Env, type ReceiptMessage } from 'effectively-once';

async function inTx<T>(env: Env, fn: (c: DbClient) => Promise<T>): Promise<T> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    c.release();
    return out;
  } catch (err) {
    c.release(err instanceof Error ? err : new Error(String(err))); // discards the connection, rolling back
    throw err;
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await inTx(env, async (c) => {
    const ins = await c.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until
         WHERE operations.state = 'running' AND operations.lease_until < now()`,
      [key],
    );
    if (ins.rowCount === 1) return 'mine' as const;
    const { rows } = await c.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return rows[0]?.state === 'done' ? ('done' as const) : ('busy' as const);
  });
  if (verdict === 'done') return 'ack';
  if (verdict === 'busy') return 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done' WHERE op_key = $1`, [key]);
  return 'ack';
}
