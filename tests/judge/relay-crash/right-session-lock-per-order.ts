// expect: right
// kind: advisory-lock
// why: a session advisory lock per order on a client of its own serialises the deliveries of one order; under it a read of the done record decides, the send goes out with a key of the order (no transaction open) and the record is written before the unlock, so a republished message finds it and acks.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
    if (!got.rows[0]?.ok) return 'retry-later';
    try {
      const done = await client.query(`SELECT 1 FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
      if (done.rows.length > 0) return 'ack';
      const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
      await client.query(
        `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)
         ON CONFLICT (op_key) DO UPDATE SET state = 'done', result = EXCLUDED.result`,
        [key, JSON.stringify(sent ?? null)],
      );
      return 'ack';
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    client.release();
  }
}
