// expect: wrong
// kind: check-then-act
// why: the decision is a plain SELECT of operations inside READ COMMITTED after inserting a per-delivery uuid audit row (which claims nothing), and the send carries no provider key, so two overlapping deliveries on PostgreSQL both see no row and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`CREATE TABLE IF NOT EXISTS receipt_audit (id uuid PRIMARY KEY, op_key text NOT NULL)`);
  const client = await env.db.connect();
  let state: string | undefined;
  let mine = false;
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO receipt_audit (id, op_key) VALUES ($1, $2)', [env.random.uuid(), key]);
    const r = await client.query<{ state: string; expired: boolean }>('SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1', [key]);
    state = r.rows[0]?.state;
    if (!r.rows[0]) {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT DO NOTHING`, [key]);
      mine = true;
    } else if (state !== 'done' && r.rows[0].expired) {
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      mine = true;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  if (!mine) return state === 'done' ? 'ack' : 'retry-later';
  // The row says it is ours, so no idempotency key needed.
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
