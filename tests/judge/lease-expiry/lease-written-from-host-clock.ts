// expect: wrong
// kind: host-clock
// why: the lease end is computed from the worker's own clock and only compared on the database's, so a worker whose clock runs behind writes a claim that is already expired in the database's time, and a second delivery takes it over while the first is still sending: two receipts.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const leaseUntil = new Date(env.clock.now() + 60_000).toISOString();
  const won = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', $2)
     ON CONFLICT (op_key) DO UPDATE SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key, leaseUntil],
  );
  if (won.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
