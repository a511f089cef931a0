// expect: wrong
// kind: wrong-key
// why: the key names the order and the day of the month of the business date (getUTCDate()), not the date: the reminders for the 5th and the 6th differ, but next month's reminder for the 5th finds this month's key done and is never sent.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const day = new Date(`${msg.businessDate}T00:00:00Z`).getUTCDate();
  const key = opKey('reminder', { orderId: msg.orderId, day });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: key },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
