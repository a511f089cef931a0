// expect: right
// kind: compare-and-set
// why: the row is created with an expired lease and taken by an UPDATE that re-checks state and lease, its row count checked, so exactly one worker sends.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const took = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now() RETURNING op_key`,
    [key],
  );
  if (took.rows.length !== 1) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
