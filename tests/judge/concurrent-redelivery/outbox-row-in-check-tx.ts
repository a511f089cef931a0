// expect: wrong
// kind: check-then-act
// why: the SELECT that decides locks nothing, and neither write after it can fail: the outbox INSERT has its own fresh id and the claim is an upsert whose answer is unread, so on PostgreSQL two overlapping transactions both find no row, both commit and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return 'ack';
    if (rows[0] && !rows[0].expired) return 'retry-later';
    // Record the event for the analytics feed in the same transaction as the claim.
    await tx.query(`INSERT INTO outbox (topic, payload) VALUES ('receipt.sending', $1)`, [JSON.stringify({ orderId: msg.orderId })]);
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
