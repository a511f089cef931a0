// expect: wrong
// kind: result-ignored
// why: a 23505 from the claim INSERT is caught under a SAVEPOINT and read as "an earlier attempt of ours left the row", so the lease is refreshed by an UPDATE that matches whatever the row holds and the send goes ahead; on PostgreSQL the second overlapping worker's INSERT waits for the first COMMIT, fails, refreshes and sends the receipt again.
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
    // The row is there: an earlier attempt of this message left it. Refresh its lease and carry on.
    const { rows: [row] } = await tx.query<{ op_key: string }>(
      `UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1 RETURNING op_key`,
      [key],
    );
    return row ? 'mine' : 'retry-later';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
