// expect: wrong
// kind: lease
// why: the only claim whose answer is read is this connection's own session row (keyed on its backend pid, fetched first and passed as a parameter), committed in a transaction of its own; the next transaction's expiry check on operations is a plain READ COMMITTED read, so on PostgreSQL two workers both find the lease absent or run out, both upsert, commit and send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`CREATE TABLE IF NOT EXISTS worker_sessions (backend int PRIMARY KEY, lease_until timestamptz NOT NULL)`);
  const client = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later' = 'retry-later';
  try {
    const { rows: me } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = Number(me[0]!.pid);
    // 1. Register this session's lease (a session that stops renewing is considered dead).
    await client.query('BEGIN');
    const reg = await client.query(
      `INSERT INTO worker_sessions (backend, lease_until) VALUES ($1, now() + interval '60 seconds')
       ON CONFLICT (backend) DO UPDATE SET lease_until = EXCLUDED.lease_until
         WHERE worker_sessions.lease_until < EXCLUDED.lease_until
       RETURNING backend`,
      [pid],
    );
    if (reg.rows.length === 0) throw new Error('session lease not renewed');
    await client.query('COMMIT');
    // 2. Decide under the session lease: new key, or a lease that ran out.
    await client.query('BEGIN');
    const row = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const r = row.rows[0];
    if (r?.state === 'done') decision = 'ack';
    else if (!r || r.expired) {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      decision = 'send';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  if (decision !== 'send') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
