// expect: wrong
// kind: host-clock
// why: the claim's lease is written and compared with the worker's own clock (Date values passed in as parameters) rather than the database's now(), so a worker whose clock runs ahead takes over a live claim and one whose clock runs behind writes a lease that has already run out.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const now = env.clock.now();
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', $2::timestamptz)
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < $3::timestamptz
     RETURNING op_key`,
    [key, new Date(now + 60_000).toISOString(), new Date(now).toISOString()],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
