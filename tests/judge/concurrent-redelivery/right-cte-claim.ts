// expect: right
// kind: cte
// why: one statement either inserts the key or takes over an expired, unfinished claim (a data-modifying CTE is one atomic statement), so exactly one of two workers gets a row back and sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query(
    `WITH fresh AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING
       RETURNING op_key
     ), stale AS (
       UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now() AND NOT EXISTS (SELECT 1 FROM fresh)
       RETURNING op_key
     )
     SELECT op_key FROM fresh UNION ALL SELECT op_key FROM stale`,
    [key],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
