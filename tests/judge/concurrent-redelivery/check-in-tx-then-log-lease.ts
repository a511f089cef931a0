// expect: wrong
// kind: check-then-act
// why: the SELECT inside the transaction locks nothing and the upsert after it reads no answer, so on PostgreSQL two overlapping transactions both find no row and both send; the lease read after COMMIT decides nothing.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return 'ack';
    if (rows[0] && !rows[0].expired) return 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const lease = await env.db.query<{ lease_until: unknown }>('SELECT lease_until FROM operations WHERE op_key = $1', [key]);
  env.log('claimed until', lease.rows[0]?.lease_until);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
