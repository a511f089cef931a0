// expect: wrong
// kind: lease
// why: the lease is given in milliseconds to a helper that takes seconds, so a claim lasts 60 000 s (almost 17 hours): a worker that dies between its claim and the send leaves the day's reminder claimed past every redelivery, and it never goes out.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

const LEASE_MS = 60_000;

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, LEASE_MS);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
