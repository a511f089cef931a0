// expect: wrong
// kind: check-then-act
// why: at REPEATABLE READ the transaction looks for any claim of the key (its own row or any worker's "key:worker" row) and then inserts a claim row of its own, key and worker name passed as two parameters; the two workers' rows never collide, so on PostgreSQL two workers handling m1 at once (duplicate delivery) both see nothing, both insert (write skew, no serialization failure), both commit and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const { rows } = await c.query<{ state: string; live: boolean }>(
      `SELECT state, lease_until > now() AS live FROM operations
        WHERE op_key = $1 OR op_key LIKE $1 || ':%' ORDER BY state = 'done' DESC, lease_until DESC LIMIT 1`,
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (!row || !row.live) {
      await c.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1 || ':' || $2, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
        [key, env.process],
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
  await env.db.query(`UPDATE operations SET state = 'done' WHERE op_key = $1 || ':' || $2`, [key, env.process]);
  return 'ack';
}
