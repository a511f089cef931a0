// expect: wrong
// kind: check-then-act
// why: the order's gate row is locked by a PL/pgSQL helper with FOR UPDATE NOWAIT whose lock_not_available handler just returns, so on PostgreSQL the second worker goes on without the lock while the first holds it, reads the lease as absent or expired before the first commits, takes it too, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

async function setup(env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS receipt_gates (order_id bigint PRIMARY KEY)');
  const { rows } = await env.db.query(`SELECT to_regprocedure('enter_receipt_gate(bigint)') AS f`);
  if (rows[0]?.f) return;
  try {
    await env.db.query(`CREATE OR REPLACE FUNCTION enter_receipt_gate(o bigint) RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM 1 FROM receipt_gates WHERE order_id = o FOR UPDATE NOWAIT;
      EXCEPTION WHEN lock_not_available THEN
        RETURN; -- never park a worker on the gate; the lease check decides
      END $fn$`);
  } catch {
    // created by the other worker at the same moment
  }
}

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await setup(env);
  await env.db.query('INSERT INTO receipt_gates (order_id) VALUES ($1) ON CONFLICT (order_id) DO NOTHING', [msg.orderId]);
  const client = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later' = 'retry-later';
  try {
    await client.query('BEGIN');
    await client.query('SELECT enter_receipt_gate($1)', [msg.orderId]);
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
