// expect: wrong
// kind: check-then-act
// why: the attempt row inserted before the transaction has a per-delivery uuid key so it claims nothing; the decision is still a plain SELECT of operations inside READ COMMITTED, which two overlapping transactions on PostgreSQL both pass.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_attempts (attempt_id uuid PRIMARY KEY, op_key text NOT NULL)`);
  const attempt = env.random.uuid();
  await env.db.query('INSERT INTO receipt_attempts (attempt_id, op_key) VALUES ($1, $2)', [attempt, key]);
  const client = await env.db.connect();
  let send = false;
  let state: string | undefined;
  try {
    await client.query('BEGIN');
    const row = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    state = row.rows[0]?.state;
    if (state === undefined) {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT DO NOTHING`,
        [key],
      );
      send = true;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  if (!send) return state === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
