// expect: wrong
// kind: wrong-key
// why: the provider key carries the process's count of deliveries handled, which a restart sets back to zero; the redelivery after a crash between the send and the record gets a different count and so a new key, and the provider sends the receipt again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

let deliveries = 0;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  deliveries++;
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: `${key}:${deliveries}` });
  await complete(env.db, key, sent);
  return 'ack';
}
