// expect: right
// kind: row-lock
// why: withTransaction commits whatever path its callback returns on, so the early returns for a done or leased row end the transaction too; the row lock lets one worker at a time take the lease, and the send carries the operation's key.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const decision = await withTransaction(env.db, async (tx) => {
    await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
      [key],
    );
    const { rows } = await tx.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1 FOR UPDATE',
      [key],
    );
    if (rows[0]!.state === 'done') return 'ack' as const;
    if (!rows[0]!.expired) return 'retry-later' as const;
    await tx.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
    return 'mine' as const;
  });
  if (decision !== 'mine') return decision;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
