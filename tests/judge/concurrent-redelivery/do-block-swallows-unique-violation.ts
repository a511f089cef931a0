// expect: wrong
// kind: check-then-act
// why: after a plain SELECT finds no claim, the claim is a plain INSERT inside a DO block whose EXCEPTION WHEN unique_violation THEN NULL swallows the duplicate (an implicit subtransaction, no SAVEPOINT written), so the block never raises; on PostgreSQL the second of two overlapping workers passes the SELECT, its INSERT waits for the first COMMIT, fails, is swallowed, and it sends the receipt again.
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
    const lit = key.replace(/'/g, "''");
    // Record the claim; a row already there (an earlier attempt of ours) is fine.
    await tx.query(`DO $$
      BEGIN
        INSERT INTO operations (op_key, state, lease_until) VALUES ('${lit}', 'running', now() + interval '60 seconds');
      EXCEPTION WHEN unique_violation THEN
        UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = '${lit}';
      END $$`);
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
