// expect: wrong
// kind: lease
// why: claim() takes the lease in seconds, and 60_000 written as milliseconds is a lease of almost 17 hours, so a worker that dies after claiming leaves a claim no redelivery can take over and the receipt is never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

const LEASE_MS = 60_000;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, LEASE_MS);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
