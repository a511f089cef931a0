// expect: wrong
// kind: check-then-act
// why: the advisory lock is keyed on the order's id as read from the orders table, but this world's orders table has no row 1042, so the key is NULL and pg_advisory_xact_lock (a STRICT function) returns NULL without locking anything: on PostgreSQL two overlapping transactions both find no claim, both upsert and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let verdict: 'mine' | 'done' | 'busy' = 'busy';
  try {
    await client.query('BEGIN');
    // Serialise every worker on this order: lock on the order's own row id.
    await client.query('SELECT pg_advisory_xact_lock((SELECT id FROM orders WHERE id = $1))', [msg.orderId]);
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') verdict = 'done';
    else if (row && !row.expired) verdict = 'busy';
    else {
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      verdict = 'mine';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
