// expect: wrong
// kind: check-then-act
// why: SELECT … FOR UPDATE locks no row that does not exist yet, so on PostgreSQL both transactions find nothing, the second INSERT's conflict is ignored, and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await withTransaction(env.db, async (tx) => {
    const row = await tx.query('SELECT state FROM operations WHERE op_key = $1 FOR UPDATE', [key]);
    if (row.rows.length > 0) return false;
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
