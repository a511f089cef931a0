// expect: right
// kind: row-lock
// why: every worker first locks the order's gate row (a permanent 'done' row under its own key, created once) FOR UPDATE, so check and claim run one worker at a time; in READ COMMITTED the waiting worker's next SELECT takes a fresh snapshot after the first committed, sees its live claim and backs off.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const gate = opKey('receipt-email-gate', { orderId: msg.orderId });
  // The gate row exists before anyone locks it; it is never work itself (done, never expires).
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', 'infinity') ON CONFLICT (op_key) DO NOTHING`,
    [gate],
  );
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM operations WHERE op_key = $1 FOR UPDATE', [gate]);
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (row && !row.expired) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
