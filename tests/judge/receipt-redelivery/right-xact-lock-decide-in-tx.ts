// expect: right
// kind: advisory-lock
// why: every worker takes pg_advisory_xact_lock on the key's hash before reading the row, so the read-decide-write in the transaction is serialized; the send happens after COMMIT with the same key as the provider's idempotency key, and complete marks it done.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let decision: 'send' | 'ack' | 'retry-later';
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 42))', [key]);
    const r = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = r.rows[0];
    if (!row) {
      await client.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      decision = 'send';
    } else if (row.state === 'done') {
      decision = 'ack';
    } else if (row.expired) {
      await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
      decision = 'send';
    } else {
      decision = 'retry-later';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    client.release();
    throw err;
  }
  client.release();
  if (decision !== 'send') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
