// expect: wrong
// kind: check-then-act
// why: the decision is a plain SELECT in a READ COMMITTED transaction whose INSERT … ON CONFLICT DO NOTHING is never read; the second short transaction that pushes the lease forward right before the send decides nothing, so on PostgreSQL two overlapping workers both find no row, both refresh the same lease and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return 'ack';
    if (rows[0]?.live) return 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    return 'go';
  });
  if (verdict !== 'go') return verdict;
  // The send can be slow: give ourselves a full minute from now, in a transaction of its own.
  await withTransaction(env.db, (tx) =>
    tx.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 AND state = 'running'`, [key]),
  );
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
