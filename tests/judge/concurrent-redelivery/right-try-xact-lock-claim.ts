// expect: right
// kind: advisory-lock
// why: pg_try_advisory_xact_lock, its answer checked, makes the check and the claim one critical section; the claim commits before the send, which happens outside any transaction.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const decision = await withTransaction(env.db, async (tx) => {
    const lock = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [key]);
    if (!lock.rows[0].got) return 'retry-later';
    const row = await tx.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    const r = row.rows[0];
    if (r?.state === 'done') return 'ack';
    if (r?.live) return 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (decision !== 'mine') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
