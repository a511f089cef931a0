// expect: wrong
// kind: check-then-act
// why: each delivery first logs itself into a delivery_log table of its own (INSERT … ON CONFLICT DO NOTHING RETURNING id, a row every time), then decides in a transaction on a plain SELECT of the key and claims with an upsert whose answer it never reads; on PostgreSQL two workers handling m1 at once (duplicate delivery) both read no row, both upsert, both commit and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`CREATE TABLE IF NOT EXISTS delivery_log (
    id bigserial PRIMARY KEY, order_id bigint NOT NULL, worker text NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
  const logged = await env.db.query<{ id: number }>(
    'INSERT INTO delivery_log (order_id, worker) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id',
    [msg.orderId, env.process],
  );
  env.log(`delivery log #${logged.rows[0]?.id}`);
  const c = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await c.query('BEGIN');
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
