// expect: wrong
// kind: result-ignored
// why: after the claim INSERT's 23505 is caught under a SAVEPOINT the worker locks the row FOR UPDATE and goes on unless it is 'done', but the first worker commits its 'running' row before it sends, so on PostgreSQL the second of two overlapping workers (past the plain SELECT, its INSERT waiting for that COMMIT) finds 'running', treats it as its own and sends the receipt again.
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
    // Somebody inserted it meanwhile: wait for them under the row lock, and only stop if they finished.
    const { rows: [row] } = await tx.query<{ state: string }>(
      'SELECT state FROM operations WHERE op_key = $1 FOR UPDATE',
      [key],
    );
    return row?.state === 'done' ? 'ack' : 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
