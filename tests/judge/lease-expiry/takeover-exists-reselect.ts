// expect: wrong
// kind: lease
// why: the takeover's expiry test re-selects the row in an EXISTS subquery ("to be explicit about which row"), and a subquery reads the statement's snapshot, not the row version ON CONFLICT locked: when a dead worker's claim has run out and two deliveries take it over at the same moment on PostgreSQL, the second waits for the first, then still sees the expired version in its subquery and takes the fresh claim too, so both send.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const claimed = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE EXISTS (
         SELECT 1 FROM operations stale
         WHERE stale.op_key = excluded.op_key
           AND stale.state <> 'done'
           AND stale.lease_until < now()
       )
     RETURNING op_key`,
    [key],
  );
  if (claimed.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
