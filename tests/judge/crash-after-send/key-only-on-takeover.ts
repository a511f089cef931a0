// expect: wrong
// kind: no-key
// why: the idempotency key is passed only when the handler takes over a claim someone else left, so the first send carries none and the provider has nothing to match the takeover's send against: a crash after the first send still means a second receipt.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  // Was this operation ever started? Only a retry can be a duplicate.
  const before = await env.db.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
  const retrying = before.rows.length > 0;
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId },
    retrying ? { idempotencyKey: key } : undefined,
  );
  await complete(env.db, key, sent);
  return 'ack';
}
