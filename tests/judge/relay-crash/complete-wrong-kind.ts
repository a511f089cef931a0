// expect: wrong
// kind: wrong-key
// why: the receipt is claimed under 'receipt-email' but completed under 'receipt', so the claim row stays running; once its 60 s lease runs out a redelivery takes it over and sends again, and only the provider's key stops the second e-mail.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const c = await claim(env.db, opKey('receipt-email', { orderId: msg.orderId }), 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  await complete(env.db, opKey('receipt', { orderId: msg.orderId }), sent);
  return 'ack';
}
