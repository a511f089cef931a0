// expect: wrong
// kind: check-then-act
// why: the claim inserts the order's key with ON CONFLICT DO NOTHING and, when it finds a row, reads its state: a 'running' row older than the lease is "taken over" by a plain UPDATE keyed on op_key alone and the send follows without checking that this UPDATE still found the row expired, so two deliveries that both read the expired claim both take it over and both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const ins = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (!ins.rows.length) {
    const { rows } = await env.db.query<{ state: string; expired: boolean }>(
      'SELECT state, lease_until < now() AS expired FROM operations WHERE op_key = $1',
      [key],
    );
    if (rows[0]?.state === 'done') return 'ack';
    if (!rows[0]?.expired) return 'retry-later';
    await env.db.query(`UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = $1`, [key]);
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
