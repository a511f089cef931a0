// expect: wrong
// kind: memory-cache
// why: the claim table is a TEMP table, which on PostgreSQL exists per connection and dies with it: after a crash between the send and the ack the redelivered message finds no claim, and only the provider's key stops a second e-mail (without it, two receipts).
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `CREATE TEMP TABLE IF NOT EXISTS my_ops (op_key text PRIMARY KEY, state text NOT NULL, lease_until timestamptz NOT NULL)`,
  );
  const won = await env.db.query(
    `INSERT INTO my_ops VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = EXCLUDED.lease_until
       WHERE my_ops.state <> 'done' AND my_ops.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (won.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM my_ops WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query(`UPDATE my_ops SET state = 'done' WHERE op_key = $1`, [key]);
  return 'ack';
}
