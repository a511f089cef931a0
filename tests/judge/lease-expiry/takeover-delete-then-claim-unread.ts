// expect: wrong
// kind: check-then-act
// why: an expired claim is deleted and the key re-claimed in one transaction, but the decision is a plain SELECT after the DELETE and the INSERT … ON CONFLICT DO NOTHING's answer is never read: on PostgreSQL two overlapping transactions after a crash both delete (the second's DELETE waits, then finds the row gone), both read "no row" and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await withTransaction(env.db, async (tx) => {
    await tx.query(`DELETE FROM operations WHERE op_key = $1 AND state <> 'done' AND lease_until < now()`, [key]);
    const { rows } = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (rows.length) return rows[0].state;
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT DO NOTHING`,
      [key],
    );
    return 'mine';
  });
  if (mine === 'done') return 'ack';
  if (mine !== 'mine') return 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
