// expect: right
// kind: row-lock
// why: the key's row is made to exist first (expired lease, ON CONFLICT DO NOTHING), then a short transaction locks it FOR UPDATE, re-reads state and lease and takes it; the second worker waits for that lock, sees the new lease and steps aside; the send comes after COMMIT.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE',
      [key],
    );
    const row = rows[0];
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
