import type { Env, ReceiptMessage } from 'effectively-once';

// Called for every delivery of a receipt message. Return 'ack' when the work is done.
export async function handleMessage(msg: ReceiptMessage, env: Env) {
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
