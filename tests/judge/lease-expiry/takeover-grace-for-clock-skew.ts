// expect: wrong
// kind: lease
// why: a takeover waits five minutes past the 60 s lease "for clock skew", so after worker-1 dies holding the claim every redelivery (30 s apart, 10 at most) is told to come back later until the queue gives up, and the order never gets its receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE operations.state <> 'done'
         AND operations.lease_until < now() - interval '5 minutes'   -- grace: hosts drift
     RETURNING op_key`,
    [key],
  );
  if (!rows.length) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
