import type { Env, ReceiptMessage } from 'effectively-once';

// Called for every "order-placed" message the relay published.
export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
