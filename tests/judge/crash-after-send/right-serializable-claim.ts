// expect: right
// kind: first-writer-wins
// why: the check and the claim run in one SERIALIZABLE transaction, so of two workers that both read no live claim PostgreSQL commits one and fails the other (40001, or 23505 on the key), which is told to come back later; the send happens after COMMIT with the operation's key, which covers a crash between the send and complete, and a 60 s lease lets a takeover follow.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  let verdict: string;
  try {
    verdict = await withTransaction(env.db, async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL SERIALIZABLE');
      const { rows } = await tx.query<{ state: string; live: boolean }>(
        'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
        [key],
      );
      if (rows[0]?.state === 'done') return 'ack';
      if (rows[0]?.live) return 'retry-later';
      await tx.query(
        `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
         ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
        [key],
      );
      return 'mine';
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '40001' || code === '23505') return 'retry-later';
    throw err;
  }
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
