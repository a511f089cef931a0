// expect: wrong
// kind: lock-leak
// why: a delivery that finds the receipt leased by another worker returns 'retry-later' from inside its transaction (the finally only releases), so the row lock it took is never let go: on pg.Pool that connection stays idle in transaction and the owner's complete waits on it for good.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

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
    if (!rows[0]!.expired) return 'retry-later';
    await client.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
