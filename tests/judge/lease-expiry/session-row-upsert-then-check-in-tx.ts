// expect: wrong
// kind: check-then-act
// why: the upsert RETURNING locks only this connection's own session row (keyed on pg_backend_pid()), so the expiry check that follows is a plain READ COMMITTED read; two workers that both find the claim expired both take it over and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`CREATE TABLE IF NOT EXISTS worker_sessions (backend int PRIMARY KEY, handled int NOT NULL DEFAULT 0)`);
  const client = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later' = 'retry-later';
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO worker_sessions (backend, handled) VALUES (pg_backend_pid(), 1)
       ON CONFLICT (backend) DO UPDATE SET handled = worker_sessions.handled + 1 RETURNING handled`,
    );
    const row = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const r = row.rows[0];
    if (!r) {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT DO NOTHING`, [key]);
      decision = 'send';
    } else if (r.state === 'done') {
      decision = 'ack';
    } else if (r.expired) {
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      decision = 'send';
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
