// expect: wrong
// kind: lock-leak
// why: a delivery that finds the receipt being sent elsewhere throws out of the open transaction with no ROLLBACK and only a release in the finally, so on pg.Pool that connection goes back idle in transaction with the claim row locked and every later statement on it runs inside the stale transaction.
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
    if (rows[0]!.state === 'done') {
      await client.query('ROLLBACK');
      return 'ack';
    }
    if (!rows[0]!.expired) throw new Error(`order ${msg.orderId}: receipt is being sent by another worker`);
    await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
