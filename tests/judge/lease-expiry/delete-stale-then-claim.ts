// expect: wrong
// kind: lease
// why: the stale-claim cleanup reads the lease in one statement and deletes by key alone in another, so a worker that took the expired claim over in between has its fresh claim deleted, the cleaner inserts its own, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const existing = await env.db.query<{ state: string; expired: boolean }>(
    `SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1`,
    [key],
  );
  const row = existing.rows[0];
  if (row?.state === 'done') return 'ack';
  if (row && row.expired) {
    // The worker that held it is gone: clear its claim so we can take it.
    await env.db.query(`DELETE FROM operations WHERE op_key = $1 AND state = 'running'`, [key]);
  }
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
