// expect: wrong
// kind: check-then-act
// why: a transaction reads "no row", inserts with ON CONFLICT DO NOTHING and never looks at whether the insert happened; on PostgreSQL two deliveries overlapping both read no row, the second's insert does nothing, and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await withTransaction(env.db, async (tx) => {
    const row = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (row.rows.length > 0) return false;
    await tx.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT DO NOTHING`, [key]);
    return true;
  });
  if (!mine) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
