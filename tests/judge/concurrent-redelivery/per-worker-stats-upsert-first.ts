// expect: wrong
// kind: check-then-act
// why: the transaction first bumps the worker's own "deliveries handled" row with an upsert that returns it, which locks only that worker's row; the decision is then a plain SELECT of the order's key and an ON CONFLICT DO NOTHING whose answer is never read, so on PostgreSQL two overlapping workers both find no claim and both send.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const verdict = await withTransaction(env.db, async (tx) => {
    const stats = await tx.query<{ result: unknown }>(
      `INSERT INTO operations (op_key, state, lease_until, result) VALUES ($1, 'done', now(), '1')
       ON CONFLICT (op_key) DO UPDATE SET result = to_jsonb(coalesce(operations.result::text::int, 0) + 1)
       RETURNING result`,
      [`stats:deliveries:${env.process}`],
    );
    env.log(`${env.process} has handled ${String(stats.rows[0]?.result)} deliveries`);
    const { rows } = await tx.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (rows.length) return rows[0]!.state === 'done' ? 'ack' : 'retry-later';
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
