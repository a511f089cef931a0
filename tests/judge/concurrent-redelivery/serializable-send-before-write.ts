// expect: wrong
// kind: email-in-tx
// why: SERIALIZABLE fails the second of two overlapping transactions only when it writes or commits, and here both have already sent the e-mail by then: both read "no row", both send, and only then does PostgreSQL refuse one INSERT.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    try {
      const seen = await client.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
      if (seen.rows.length === 0) {
        const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
        await client.query(`INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), $2)`, [key, JSON.stringify(sent)]);
      }
      await client.query('COMMIT');
      return 'ack';
    } catch (err) {
      await client.query('ROLLBACK');
      const code = (err as { code?: string }).code;
      if (code === '40001' || code === '23505') return 'retry-later';
      throw err;
    }
  } finally {
    client.release();
  }
}
