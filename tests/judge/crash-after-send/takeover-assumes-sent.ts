// expect: wrong
// kind: done-before-effect
// why: a worker that takes over an expired claim assumes the dead worker got as far as the send and marks it done without sending, so a crash before email.send leaves the order with no receipt.
import { opKey, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const { rows } = await env.db.query<{ fresh: boolean }>(
    `INSERT INTO operations (op_key, state, lease_until)
     VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE
       SET state = 'running', lease_until = now() + interval '60 seconds'
       WHERE operations.state <> 'done' AND operations.lease_until < now()
     RETURNING (xmax = 0) AS fresh`,
    [key],
  );
  if (!rows.length) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  if (!rows[0].fresh) {
    // someone claimed this before and died: the send is the slow part, so it almost certainly went
    await complete(env.db, key, { assumed: true });
    return 'ack';
  }
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
