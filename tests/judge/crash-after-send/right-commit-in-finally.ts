// expect: right
// kind: compare-and-set
// why: the claim's statements run in one transaction whose COMMIT sits in a finally, so every path ends it (after a failed statement COMMIT rolls back); the claim is the INSERT … ON CONFLICT … WHERE that only takes an expired running row, and the send carries the key.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const client = await env.db.connect();
  let owned = false;
  let state: string | undefined;
  await client.query('BEGIN');
  try {
    const took = await client.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '60 seconds'
         WHERE operations.state = 'running' AND operations.lease_until < now()
       RETURNING op_key`,
      [key],
    );
    owned = took.rows.length === 1;
    if (!owned) {
      const row = await client.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
      state = row.rows[0]?.state;
    }
  } finally {
    await client.query('COMMIT');
    client.release();
  }
  if (!owned) return state === 'done' ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
