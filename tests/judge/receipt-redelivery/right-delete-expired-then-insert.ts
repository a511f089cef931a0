// expect: right
// kind: first-writer-wins
// why: an expired unfinished claim is deleted, then the key is inserted with ON CONFLICT DO NOTHING and the row count read: of any number of deliveries one insert wins, a live or done row is never deleted, and the send carries the key.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(`DELETE FROM operations WHERE op_key = $1 AND state = 'running' AND lease_until < now()`, [key]);
  const ins = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (ins.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
