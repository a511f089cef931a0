// expect: right
// kind: advisory-lock
// why: a cheap unlocked read only short-cuts the finished case; the decision is the second read, made after pg_advisory_xact_lock on the key, which in READ COMMITTED takes a fresh snapshot, so the worker that waited for the lock sees the other's committed claim and steps aside; the send comes after COMMIT.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    // Fast path: most redeliveries find the receipt already sent, no lock needed.
    const quick = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (quick.rows[0]?.state === 'done') return 'ack';
    // Slow path: serialise on the key, then look again.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    const { rows } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (row?.state === 'done') return 'ack';
    if (row && !row.expired) return 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
