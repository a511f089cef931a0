// expect: wrong
// kind: email-in-tx
// why: the claim row is locked FOR UPDATE SKIP LOCKED in a transaction held open across the send: no duplicate gets through, but the lesson's rule is broken — the transaction, its row lock and a pooled connection are held for as long as the provider takes (90 s when it is slow), and a rollback cannot take the e-mail back.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now()) ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const client = await env.db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ state: string }>(
      'SELECT state FROM operations WHERE op_key = $1 FOR UPDATE SKIP LOCKED',
      [key],
    );
    if (rows.length === 0 || rows[0]!.state === 'done') {
      await client.query('ROLLBACK');
      return rows.length === 0 ? 'retry-later' : 'ack';
    }
    const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
    await client.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
    await client.query('COMMIT');
    return 'ack';
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
