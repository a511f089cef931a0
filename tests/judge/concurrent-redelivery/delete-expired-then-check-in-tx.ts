// expect: wrong
// kind: check-then-act
// why: the transaction first deletes an expired claim, then decides on a plain SELECT and an INSERT … ON CONFLICT DO NOTHING whose answer it never reads; on PostgreSQL two overlapping READ COMMITTED transactions both delete nothing, both read "no row", the second INSERT waits and then does nothing, and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // One transaction = atomic: clear a dead worker's claim, look, and claim.
  const state = await withTransaction(env.db, async (tx) => {
    await tx.query(
      `DELETE FROM operations WHERE op_key = $1 AND state = 'running' AND lease_until < now()`,
      [key],
    );
    const seen = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length > 0) return seen.rows[0].state;
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    return 'mine';
  });
  if (state === 'done') return 'ack';
  if (state !== 'mine') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
