// expect: wrong
// kind: check-then-act
// why: the advisory lock is taken after the SELECT already read "no row", so on PostgreSQL the second worker waits for the lock, then inserts nothing new and sends anyway.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await withTransaction(env.db, async (tx) => {
    const row = await tx.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
    if (row.rows.length > 0) return false;
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT DO NOTHING`,
      [key],
    );
    return true;
  });
  if (!mine) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
