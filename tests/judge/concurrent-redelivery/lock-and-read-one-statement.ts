// expect: wrong
// kind: check-then-act
// why: the advisory lock and the read are one statement, and in READ COMMITTED a statement reads from the snapshot taken when it started, before it waited for the lock: the second worker, let in once the first commits, still reads no row and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    // Lock and look in one round trip.
    const { rows } = await tx.query<{ state: string | null; expired: boolean | null }>(
      `SELECT pg_advisory_xact_lock(hashtext($1)) AS locked,
              (SELECT state FROM operations WHERE op_key = $1) AS state,
              (SELECT lease_until < now() FROM operations WHERE op_key = $1) AS expired`,
      [key],
    );
    const row = rows[0];
    if (row.state === 'done') return 'ack';
    if (row.state !== null && !row.expired) return 'retry-later';
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
