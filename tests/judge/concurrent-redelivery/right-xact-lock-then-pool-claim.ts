// expect: right
// kind: advisory-lock
// why: a transaction on a client of its own holds pg_advisory_xact_lock on the key as a mutex while the check and the claim run through the pool (other connections, each statement committed at once); every worker takes the lock before its check, so the second waits until the first has committed its claim and then reads it, the lock touches no row so nothing waits on it, and the e-mail goes only after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const lock = await env.db.connect();
  try {
    await lock.query('BEGIN');
    await lock.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    // Held until COMMIT: the other worker's check waits for it.
    const { rows } = await env.db.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') {
      await lock.query('COMMIT');
      return 'ack';
    }
    if (row && !row.expired) {
      await lock.query('COMMIT');
      return 'retry-later';
    }
    await env.db.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = excluded.lease_until`,
      [key],
    );
    await lock.query('COMMIT');
  } catch (err) {
    await lock.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    lock.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
