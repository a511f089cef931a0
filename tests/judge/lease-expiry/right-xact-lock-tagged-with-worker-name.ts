// expect: right
// kind: advisory-lock
// why: the transaction's first statement names the worker in pg_stat_activity (set_config('application_name', worker, true)) and takes pg_advisory_xact_lock(hashtext(key)) on the operation's key, the same key for every worker; check and claim then run one worker at a time (the waiter's read is a fresh READ COMMITTED snapshot that sees the first claim), a dead worker's 60 s lease is taken over, and the send comes after COMMIT.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function decide(env: Env, key: string): Promise<'send' | 'ack' | 'retry-later'> {
  const c = await env.db.connect();
  try {
    await c.query('BEGIN');
    // Tag the session for whoever looks at pg_stat_activity, and take the key's lock.
    await c.query(`SELECT set_config('application_name', $2, true), pg_advisory_xact_lock(hashtext($1))`, [key, env.process]);
    const { rows } = await c.query<{ state: string; live: boolean }>('SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1', [key]);
    const row = rows[0];
    let d: 'send' | 'ack' | 'retry-later';
    if (row?.state === 'done') d = 'ack';
    else if (row?.live) d = 'retry-later';
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
