// expect: wrong
// kind: memory-cache
// why: each worker has its own module memory, so the two workers holding the same message each find nothing in their own set and both send.
import type { Env, ReceiptMessage } from 'effectively-once';

const sending = new Set<number>();

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  if (sending.has(msg.orderId)) return 'ack';
  sending.add(msg.orderId);
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}
