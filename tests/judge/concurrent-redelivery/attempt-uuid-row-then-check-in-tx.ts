// expect: wrong
// kind: check-then-act
// why: each delivery first inserts its own attempt row (a fresh uuid, so it never conflicts), then SELECTs operations in the same READ COMMITTED transaction; on PostgreSQL two workers' transactions both see no row, both commit, both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS delivery_attempts (attempt_id text PRIMARY KEY, op_key text NOT NULL, seen_at timestamptz NOT NULL DEFAULT now())`,
  );
  const client = await env.db.connect();
  let mine = false;
  try {
    await client.query('BEGIN');
    // Audit trail: which attempt looked at this key.
    await client.query('INSERT INTO delivery_attempts (attempt_id, op_key) VALUES ($1, $2)', [env.random.uuid(), key]);
    const seen = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length === 0) {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO NOTHING`,
        [key],
      );
      mine = true;
    }
    await client.query('COMMIT');
    if (!mine) {
      client.release();
      return seen.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
    }
  } catch (err) {
    await client.query('ROLLBACK');
    client.release();
    throw err;
  }
  client.release();
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
