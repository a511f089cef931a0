// expect: wrong
// kind: check-then-act
// why: a SELECT inside BEGIN … COMMIT locks nothing on PostgreSQL, so two workers both find no row and both send.
import { opKey, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  return withTransaction(env.db, async (tx) => {
    const seen = await tx.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length > 0) return 'ack';
    await env.email.send({ to: msg.customer, orderId: msg.orderId });
    await tx.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())`, [key]);
    return 'ack';
  });
}
