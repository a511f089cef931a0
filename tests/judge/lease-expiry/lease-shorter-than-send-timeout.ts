// expect: wrong
// kind: lease
// why: the lease (25 s) covers the slowest send seen so far but not the send's own 30 s timeout, so a send still in flight after 25 s leaves an expired claim that a second delivery takes over, and with a provider that keeps no keys the customer gets two receipts.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

// Sends take 200 ms, 20 s on a bad day: 25 s is plenty, and a dead worker is overtaken sooner.
const LEASE_SECONDS = 25;

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  const key = opKey('receipt-email', { orderId: msg.orderId });
  const c = await claim(env.db, key, LEASE_SECONDS);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await complete(env.db, key, sent);
  return 'ack';
}
