// expect: wrong
// kind: no-claim
// why: with no record of its own the consumer relies on the provider's memory, which ends after its retention window (and many providers keep no keys), so a late redelivery sends again.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  await env.email.send({ to: msg.customer, orderId: msg.orderId }, { idempotencyKey: key });
  return 'ack';
}
