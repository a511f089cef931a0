// expect: wrong
// kind: host-clock
// why: the lease is written and compared with the worker's own clock instead of the database's now(), so a worker whose clock runs ahead sees a live lease as expired and takes it over.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const now = new Date(env.clock.now()).toISOString();
  const until = new Date(env.clock.now() + 60_000).toISOString();
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', $2::timestamptz)
     ON CONFLICT (op_key) DO UPDATE SET lease_until = $2::timestamptz
       WHERE operations.state <> 'done' AND operations.lease_until < $3::timestamptz
     RETURNING op_key`,
    [key, until, now],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
