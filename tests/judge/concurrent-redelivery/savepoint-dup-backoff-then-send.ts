// expect: wrong
// kind: check-then-act
// why: the claim INSERT's 23505 is caught under a SAVEPOINT, the transaction commits, and after a short back-off the worker sends anyway ("the other worker probably crashed"); on PostgreSQL the second of two overlapping workers passes the plain SELECT, waits on the INSERT for the first COMMIT, fails, backs off and sends the receipt a second time.
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
      return 'raced';
    }
  });
  if (verdict === 'raced') {
    await env.sleep(200);                       // let the other worker finish or die, then make sure it went out
  } else if (verdict !== 'mine') {
    return verdict;
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
