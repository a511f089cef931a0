// expect: wrong
// kind: check-then-act
// why: the FOR UPDATE locks this connection's own row (keyed on pg_backend_pid()), which no other worker ever touches, so the following SELECT on operations is still an unlocked read and two workers both find no row and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`CREATE TABLE IF NOT EXISTS consumer_sessions (backend int PRIMARY KEY, last_seen timestamptz NOT NULL)`);
  await env.db.query(
    `INSERT INTO consumer_sessions (backend, last_seen) VALUES (pg_backend_pid(), now())
     ON CONFLICT (backend) DO UPDATE SET last_seen = EXCLUDED.last_seen`,
  );
  const client = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later' = 'retry-later';
  try {
    await client.query('BEGIN');
    // Serialize this consumer's work through its session row.
    const me = await client.query('SELECT backend FROM consumer_sessions WHERE backend = pg_backend_pid() FOR UPDATE');
    if (me.rows.length === 0) throw new Error('session row missing');
    const seen = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length === 0) {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO NOTHING`,
        [key],
      );
      decision = 'send';
    } else {
      decision = seen.rows[0].state === 'done' ? 'ack' : 'retry-later';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  if (decision !== 'send') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
