// expect: right
// kind: advisory-lock
// why: each delivery takes pg_try_advisory_xact_lock on the key and reads the key's row in the same transaction; a finished key is acknowledged whoever holds the lock, and only the lock holder (answer checked) claims an unclaimed or expired key, committing before the send, so two workers never both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

type Decision = 'send' | 'ack' | 'retry-later';

async function decide(env: Env, key: string): Promise<Decision> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    const lock = await c.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [key]);
    const { rows } = await c.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    let d: Decision;
    if (rows[0]?.state === 'done') d = 'ack';            // finished: nothing to wait for
    else if (lock.rows[0]?.got !== true) d = 'retry-later'; // someone else is deciding right now
    else if (rows[0]?.live) d = 'retry-later';           // a live claim of another worker
    else {
      await c.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      d = 'send';
    }
    await c.query('COMMIT');
    return d;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const d = await decide(env, key);
  if (d !== 'send') return d;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
