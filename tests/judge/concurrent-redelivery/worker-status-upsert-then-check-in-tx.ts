// expect: wrong
// kind: check-then-act
// why: the transaction first records what this worker is doing in its own worker_status row (an upsert keyed on the worker, returning its row), then decides on a plain SELECT of the key and claims with an upsert whose answer it ignores; the status row locks only this worker's own row, so on PostgreSQL two workers handling m1 at once (duplicate delivery) both read no claim, both commit and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`CREATE TABLE IF NOT EXISTS worker_status (
    worker text PRIMARY KEY, order_id bigint NOT NULL, since timestamptz NOT NULL)`);
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO worker_status (worker, order_id, since) VALUES ($1, $2, now())
       ON CONFLICT (worker) DO UPDATE SET order_id = EXCLUDED.order_id, since = EXCLUDED.since
       RETURNING since`,
      [env.process, msg.orderId],
    );
    const { rows } = await c.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (!row || !row.live) {
      await c.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
        [key],
      );
      verdict = 'mine';
    }
    await c.query('COMMIT');
    c.release();
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
  if (verdict === 'done') return 'ack';
  if (verdict === 'busy') return 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done' WHERE op_key = $1`, [key]);
  return 'ack';
}
