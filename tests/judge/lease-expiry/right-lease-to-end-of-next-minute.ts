// expect: right
// kind: compare-and-set
// why: the lease is aligned to the minute but ends at the end of the minute after the claim's (date_trunc('minute', now()) + 2 minutes), so it always lasts more than 60 s and at most 120 s: longer than the 30 s a send may take, and short enough that a dead worker's claim is taken over long before the queue gives up.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // leases end on a whole minute (the sweeper dashboard lines up), at least a full minute away
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', date_trunc('minute', now()) + interval '2 minutes')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
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
