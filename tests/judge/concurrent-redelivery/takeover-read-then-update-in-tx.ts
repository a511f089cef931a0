// expect: wrong
// kind: check-then-act
// why: the takeover reads the lease in a READ COMMITTED transaction without FOR UPDATE and then updates by key alone, so two workers that both read an expired claim both take it over (the second UPDATE waits, then applies anyway) and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    const row = rows[0];
    if (!row) {
      await tx.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')`, [key]);
      return 'mine';
    }
    if (row.state === 'done') return 'done';
    if (!row.expired) return 'busy';
    await tx.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    return 'mine';
  });
  if (verdict !== 'mine') return verdict === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
