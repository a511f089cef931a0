// expect: right
// kind: row-lock
// why: the claim row is created if missing and then locked with FOR UPDATE, so one worker at a time decides; a done or leased row ends the transaction with ROLLBACK before its early return, and the lease is taken and committed before the send, whose key the provider dedupes on.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    const { rows } = await client.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE',
      [key],
    );
    const row = rows[0]!;
    if (row.state === 'done') {
      await client.query('ROLLBACK');
      return 'ack';
    }
    if (!row.expired) {
      await client.query('ROLLBACK');
      return 'retry-later';
    }
    await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
