// expect: wrong
// kind: check-then-act
// why: the row is made sure to exist and "locked" with SELECT … FOR UPDATE in autocommit, where the lock ends with the statement; the transaction that follows reads the state with a plain SELECT and sets 'running' with an unguarded UPDATE whose count is ignored, so on PostgreSQL two workers handling m1 at once (duplicate delivery) both read 'pending', both update, and both send.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  await env.db.query('SELECT op_key FROM operations WHERE op_key = $1 FOR UPDATE', [key]); // "lock" the row
  const c = await env.db.connect();
  let mine = false;
  let done = false;
  try {
    await c.query('BEGIN');
    const { rows } = await c.query<{ state: string; free: boolean }>(
      'SELECT state, lease_until < now() AS free FROM operations WHERE op_key = $1',
      [key],
    );
    done = rows[0]?.state === 'done';
    if (!done && rows[0]?.free) {
      await c.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      mine = true;
    }
    await c.query('COMMIT');
    c.release();
  } catch (err) {
    c.release(err instanceof Error ? err : true);
    throw err;
  }
  if (done) return 'ack';
  if (!mine) return 'retry-later';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(`UPDATE operations SET state = 'done' WHERE op_key = $1`, [key]);
  return 'ack';
}
