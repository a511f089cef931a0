// expect: right
// kind: first-writer-wins
// why: an insert-or-read-again loop in one transaction: a plain INSERT under a SAVEPOINT is the claim, an expired claim is taken only by a guarded UPDATE … RETURNING, and on 23505 the loop rolls back to the savepoint and reads again; on PostgreSQL the second worker's INSERT fails only once the first committed its claim, so the fresh READ COMMITTED re-read finds that live claim and it steps aside.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { rows: [row] } = await tx.query<{ state: string; expired: boolean }>(
        'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
        [key],
      );
      if (row?.state === 'done') return 'ack';
      if (row && !row.expired) return 'retry-later';
      if (row) {
        const { rows: [taken] } = await tx.query(
          `UPDATE operations SET lease_until = now() + interval '60 seconds'
           WHERE op_key = $1 AND state <> 'done' AND lease_until < now() RETURNING op_key`,
          [key],
        );
        return taken ? 'mine' : 'retry-later';
      }
      await tx.query('SAVEPOINT claim');
      try {
        await tx.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
        await tx.query('RELEASE SAVEPOINT claim');
        return 'mine';
      } catch (err) {
        if ((err as { code?: string }).code !== '23505') throw err;
        await tx.query('ROLLBACK TO SAVEPOINT claim');   // it was inserted meanwhile: read it again
      }
    }
    return 'retry-later';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
