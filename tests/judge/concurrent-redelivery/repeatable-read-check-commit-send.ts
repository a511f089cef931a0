// expect: wrong
// kind: check-then-act
// why: REPEATABLE READ only fails a second writer of the same row, and this transaction writes nothing: two overlapping workers both read "not done", both commit, both send, and both record done (the second upsert simply overwrites).
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let done = false;
  try {
    // Strict isolation, so the check cannot be raced.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const seen = await client.query(`SELECT 1 FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
    done = seen.rows.length > 0;
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (done) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
    [key, JSON.stringify(sent)],
  );
  return 'ack';
}
