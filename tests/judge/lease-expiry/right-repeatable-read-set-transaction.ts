// expect: right
// kind: first-writer-wins
// why: the lib's withTransaction opens the transaction and SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, its first statement, fixes one snapshot for it; a claim (INSERT … ON CONFLICT DO NOTHING) or a takeover of an expired, unfinished claim (UPDATE) that meets a row another worker committed after that snapshot fails with 40001, answered with retry-later, so one worker at a time holds the key; the send comes after COMMIT and the lease is on the database's clock.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  let verdict: string;
  try {
    verdict = await withTransaction(env.db, async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const { rows } = await tx.query<{ state: string; live: boolean }>(
        'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
        [key],
      );
      const row = rows[0];
      if (row?.state === 'done') return 'ack';
      if (row?.live) return 'retry-later';
      if (row) {
        await tx.query(
          `UPDATE operations SET state = 'running', lease_until = now() + interval '60 seconds'
           WHERE op_key = $1 AND state <> 'done' AND lease_until < now()`,
          [key],
        );
      } else {
        await tx.query(
          `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
           ON CONFLICT (op_key) DO NOTHING`,
          [key],
        );
      }
      return 'mine';
    });
  } catch (err) {
    if ((err as { code?: string }).code === '40001') return 'retry-later';
    throw err;
  }
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
