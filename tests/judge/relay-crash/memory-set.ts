// expect: wrong
// kind: memory-cache
// why: the orders already receipted live in the worker's memory, which a crash wipes, so the redelivery or republish after a restart sends again.
import type { Env, ReceiptMessage } from 'effectively-once';

const receipted = new Set<number>();

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  if (receipted.has(msg.orderId)) return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  receipted.add(msg.orderId);
  return 'ack';
}
