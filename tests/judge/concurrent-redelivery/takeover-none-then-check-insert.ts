// expect: wrong
// kind: check-then-act
// why: the takeover UPDATE … RETURNING finds no row on a first delivery, so it locks nothing; the SELECT after it locks nothing either and the INSERT … ON CONFLICT DO NOTHING's answer is never read, so on PostgreSQL two overlapping transactions both find no row and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    const taken = await tx.query(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now()
       RETURNING op_key`,
      [key],
    );
    if (taken.rows.length === 1) return 'mine';
    const { rows } = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (rows[0]) return rows[0].state === 'done' ? 'ack' : 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds') ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
