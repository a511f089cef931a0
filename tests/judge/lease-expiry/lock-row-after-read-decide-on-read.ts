// expect: wrong
// kind: check-then-act
// why: the row is locked FOR UPDATE only after the unlocked read that decides, and the locked answer is thrown away: on PostgreSQL two workers both read the expired lease, take the lock in turn and both take the key over with an unguarded UPDATE, so both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() - interval '1 second')
     ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') {
      await client.query('COMMIT');
      return 'ack';
    }
    if (!row?.expired) {
      await client.query('COMMIT');
      return 'retry-later';
    }
    // Lock the row before writing it.
    await client.query('SELECT 1 FROM operations WHERE op_key = $1 FOR UPDATE', [key]);
    await client.query(`UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
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
