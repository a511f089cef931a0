// expect: wrong
// kind: lease
// why: the claim INSERT's 23505 is caught under a SAVEPOINT and the row is then "taken over" by an UPDATE … WHERE state <> 'done' RETURNING that forgets to ask whether the lease has expired; on PostgreSQL the second of two overlapping workers passes the plain SELECT, waits on the INSERT for the first COMMIT, fails, takes over the live 'running' row and sends the receipt a second time.
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
    // The row exists and we saw its lease expired above: take it over unless it is finished.
    const { rows: [taken] } = await tx.query<{ op_key: string }>(
      `UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state <> 'done'
       RETURNING op_key`,
      [key],
    );
    return taken ? 'mine' : 'ack';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
