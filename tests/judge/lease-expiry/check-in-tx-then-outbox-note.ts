// expect: wrong
// kind: check-then-act
// why: the lease is read with a plain SELECT in a READ COMMITTED transaction and the key taken with an upsert that overwrites any row and returns nothing, so on PostgreSQL two overlapping deliveries both see no live claim and both go on; the "receipt going out" row written to the outbox afterwards decides nothing, and both send.
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
    // Nobody holds it, or the holder's lease ran out: take it.
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until`,
      [key],
    );
    return 'mine';
  });
  if (verdict !== 'mine') return verdict;
  // Let the support dashboard know a receipt is on its way.
  await env.db.query(`INSERT INTO outbox (topic, payload) VALUES ('receipt-sending', $1)`, [
    JSON.stringify({ orderId: msg.orderId, by: env.process }),
  ]);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
