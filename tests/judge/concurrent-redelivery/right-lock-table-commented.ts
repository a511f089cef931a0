// expect: right
// kind: row-lock
// why: a short transaction locks the operations table in SHARE ROW EXCLUSIVE mode, which conflicts with itself, before it reads, so the two workers' read-then-claim sections run one after the other (the second's read, a fresh snapshot, sees the first's committed claim); the send comes after COMMIT and a lease lets a takeover follow a crash.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    await tx.query(`-- one claimer at a time: this mode conflicts with itself
      LOCK TABLE operations IN SHARE ROW EXCLUSIVE MODE`);
    const { rows } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') return 'ack';
    if (row && !row.expired) return 'retry-later';
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
