// expect: wrong
// kind: memory-cache
// why: keys are remembered in the worker's memory as soon as their claim is won ("skip the database next time"), so when the send then times out and the message comes back to the same worker, the cache answers "done", the delivery is acknowledged and that day's reminder is never sent.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

const handled = new Set<string>();

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  if (handled.has(key)) return 'ack';
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  handled.add(key);
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
