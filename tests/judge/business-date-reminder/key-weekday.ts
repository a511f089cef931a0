// expect: wrong
// kind: wrong-key
// why: the key names the weekday of the business date, not the date, so next week's reminder for the same order on the same weekday finds last week's key done and is never sent.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // One reminder per business day: Monday's, Tuesday's, …
  const day = DAYS[new Date(`${msg.businessDate}T00:00:00Z`).getUTCDay()];
  const key = opKey('reminder', { orderId: msg.orderId, day });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
