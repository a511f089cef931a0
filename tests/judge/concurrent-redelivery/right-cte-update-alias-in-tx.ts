// expect: right
// kind: cte
// why: the key's row is made to exist first (expired lease, ON CONFLICT DO NOTHING); the claim is then one data-modifying CTE whose UPDATE re-checks state and lease on the latest row version, so of two overlapping transactions only one gets a row back and sends after COMMIT.
import { opKey, complete, withTransaction, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const verdict = await withTransaction(env.db, async (tx) => {
    const { rows } = await tx.query<{ taken: number; state: string }>(
      `WITH taken AS (
         UPDATE operations AS o SET lease_until = now() + interval '60 seconds'
         WHERE o.op_key = $1 AND o.state = 'running' AND o.lease_until < now()
         RETURNING o.op_key
       )
       SELECT (SELECT count(*) FROM taken)::int AS taken, state FROM operations WHERE op_key = $1`,
      [key],
    );
    const row = rows[0];
    if (row.taken === 1) return 'mine';
    return row.state === 'done' ? 'ack' : 'retry-later';
  });
  if (verdict !== 'mine') return verdict;
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
