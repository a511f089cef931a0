// expect: wrong
// kind: wrong-key
// why: the consumer calls a message a duplicate when the order's outbox row is already marked published, but the relay marks it published when it commits its pass, which usually comes before the consumer reads: the first and only delivery is then dropped too, and the order never gets its receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  // A relay that crashed before marking re-publishes; one that marked it already did its job.
  const { rows } = await env.db.query<{ published: boolean }>(
    `SELECT published_at IS NOT NULL AS published FROM outbox
     WHERE topic = 'order-placed' AND (payload->>'orderId')::int = $1
     ORDER BY id LIMIT 1`,
    [msg.orderId],
  );
  if (rows[0]?.published) return 'ack';
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
