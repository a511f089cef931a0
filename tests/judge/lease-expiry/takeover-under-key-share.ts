// expect: wrong
// kind: lease
// why: the takeover reads the expired claim FOR KEY SHARE and then updates it by key alone; KEY SHARE admits another KEY SHARE and the FOR NO KEY UPDATE lock of a lease-only UPDATE, so on PostgreSQL two deliveries that reach the expired claim together both read it expired, the second UPDATE waits, then overwrites the first worker's fresh lease, and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const fresh = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  let mine = fresh.rows.length > 0;
  if (!mine) {
    const client = await env.db.connect();
    try {
      await client.query('BEGIN');
      // Pin the row while we look at its lease (KEY SHARE: the lightest row lock there is).
      const { rows } = await client.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR KEY SHARE',
        [key],
      );
      const row = rows[0];
      if (row?.state === 'done') {
        await client.query('COMMIT');
        return 'ack';
      }
      if (row?.expired) {
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
  }
  if (!mine) return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
