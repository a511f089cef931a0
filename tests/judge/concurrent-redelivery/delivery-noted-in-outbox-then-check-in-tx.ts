// expect: wrong
// kind: check-then-act
// why: every delivery first notes itself in the outbox for the ops dashboard (a plain INSERT with a fresh id, which claims nothing); the decision is then a plain SELECT in a READ COMMITTED transaction and an INSERT … ON CONFLICT DO NOTHING whose answer is never read, so on PostgreSQL two overlapping workers both find no claim and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`INSERT INTO outbox (topic, payload) VALUES ('receipt-delivery-seen', $1)`, [
    JSON.stringify({ orderId: msg.orderId, worker: env.process }),
  ]);
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; live: boolean }>(
      'SELECT state, lease_until > now() AS live FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return 'ack';
    if (rows[0]?.live) return 'retry-later';
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
