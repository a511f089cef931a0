// expect: right
// kind: cte
// why: one data-modifying CTE inserts the order's key or takes over an expired unfinished claim, so one worker at a time holds a live claim, and the send carries the operation's key, which the provider dedupes when a takeover follows a crash after the send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const won = await env.db.query(
    `WITH taken AS (
       UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now()
       RETURNING op_key
     ), made AS (
       INSERT INTO operations (op_key, state, lease_until)
       SELECT $1, 'running', now() + interval '60 seconds'
       WHERE NOT EXISTS (SELECT 1 FROM operations WHERE op_key = $1)
       ON CONFLICT (op_key) DO NOTHING
       RETURNING op_key
     )
     SELECT op_key FROM taken UNION ALL SELECT op_key FROM made`,
    [key],
  );
  if (won.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
