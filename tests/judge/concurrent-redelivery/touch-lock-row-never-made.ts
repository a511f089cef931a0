// expect: wrong
// kind: check-then-act
// why: the UPDATE meant to lock the order's lock row touches nothing, since no code ever inserts that row, so it locks nothing; on PostgreSQL two workers both read "not claimed" and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  try {
    await env.db.query('CREATE TABLE IF NOT EXISTS receipt_locks (op_key text PRIMARY KEY, touched_at timestamptz)');
  } catch (err) {
    const { rows } = await env.db.query(`SELECT to_regclass('receipt_locks') AS t`);
    if (!rows[0]?.t) throw err;
  }
  // One lock row per operation, there before anyone locks it.

  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    // Touching the row locks it until COMMIT: the other worker's UPDATE waits here.
    await client.query('UPDATE receipt_locks SET touched_at = now() WHERE op_key = $1', [key]);
    const { rows } = await client.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row && (row.state === 'done' || row.live)) {
      await client.query('COMMIT');
      return row.state === 'done' ? 'ack' : 'retry-later';
    }
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
