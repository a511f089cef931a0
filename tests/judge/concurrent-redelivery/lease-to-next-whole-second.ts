// expect: wrong
// kind: lease
// why: the lease runs to the next whole second (date_trunc('second', now()) + 1 second), anywhere from a few ms to 1 s, shorter than the work: a claim at hh:mm:59.9 expires a tenth of a second later, while its worker is still sending, and a second delivery then takes it over and sends again (this provider keeps no keys).
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const mine = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', date_trunc('second', now()) + interval '1 second')
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
