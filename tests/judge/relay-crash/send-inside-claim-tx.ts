// expect: wrong
// kind: email-in-tx
// why: the e-mail goes out inside the transaction that holds the claim, so a crash after the send rolls the claim back and the redelivery sends again.
import { opKey, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  return withTransaction(env.db, async (tx) => {
    const mine = await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now())
       ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
      [key],
    );
    if (mine.rows.length === 0) return 'ack';
    await env.email.send({ to: msg.customer, orderId: msg.orderId });
    return 'ack';
  });
}
