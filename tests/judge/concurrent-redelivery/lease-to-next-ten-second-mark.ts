// expect: wrong
// kind: lease
// why: the lease ends at the next 10-second mark (date_bin('10 seconds', now(), epoch) + 10 s), anywhere from a few ms to 10 s: a claim at hh:mm:59.9 holds for a tenth of a second, so a second delivery takes it over while the first worker is still sending and this provider, which keeps no keys, sends twice.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // leases end on the sweeper's 10 s tick
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', date_bin('10 seconds', now(), timestamptz 'epoch') + interval '10 seconds')
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
