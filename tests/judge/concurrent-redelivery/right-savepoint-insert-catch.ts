// expect: right
// kind: first-writer-wins
// why: inside one transaction a plain INSERT of the key under a SAVEPOINT is the claim: the second worker's INSERT waits for the first to commit and fails with 23505, which is caught by rolling back to the savepoint, after which only an UPDATE … WHERE lease expired … RETURNING can still give it the key; the send comes after COMMIT.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows: [before] } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    if (before?.state === 'done') return 'ack';
    if (before && !before.expired) return 'retry-later';
    await tx.query('SAVEPOINT claim');
    try {
      await tx.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      await tx.query('RELEASE SAVEPOINT claim');
      return 'mine';
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await tx.query('ROLLBACK TO SAVEPOINT claim');
    }
    const { rows: [taken] } = await tx.query<{ op_key: string }>(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now()
       RETURNING op_key`,
      [key],
    );
    return taken ? 'mine' : 'retry-later';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
