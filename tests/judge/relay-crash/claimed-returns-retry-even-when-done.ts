// expect: wrong
// kind: no-claim
// why: any delivery that does not win the INSERT answers retry-later, including a republished copy whose receipt is already done, so that copy is never acknowledged and the queue keeps redelivering it until it gives up.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const won = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE operations.state = 'running' AND operations.lease_until < now()
     RETURNING op_key`,
    [key],
  );
  if (won.rows.length === 0) return 'retry-later';   // someone else has it
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await env.db.query(`UPDATE operations SET state = 'done', result = $2 WHERE op_key = $1`, [key, JSON.stringify(sent)]);
  return 'ack';
}
