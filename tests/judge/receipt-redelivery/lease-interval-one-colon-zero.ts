// expect: wrong
// kind: lease
// why: the lease is written as interval '1:00', meant as one minute, which PostgreSQL reads as one hour: a worker that dies holding the claim blocks the receipt for an hour, every redelivery meanwhile is told to come back later, and the queue gives up on the message after ten tries.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '1:00')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = EXCLUDED.lease_until
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (rows.length === 0) {
    const existing = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return existing.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
