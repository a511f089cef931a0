// expect: wrong
// kind: memory-cache
// why: a Set in the module is one process's memory: the other worker never sees it and a crash wipes it, so a redelivery after a crash sends again.
import type { Env, ReceiptMessage } from 'effectively-once';

const sent = new Set<number>();

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  if (sent.has(msg.orderId)) return 'ack';
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  sent.add(msg.orderId);
  return 'ack';
}
