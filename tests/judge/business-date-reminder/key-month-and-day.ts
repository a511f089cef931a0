// expect: wrong
// kind: wrong-key
// why: the key keeps the business date's month and day ("01-05") but drops the year, so next year's reminder for the same order on the same calendar day finds this year's key done and is never sent.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // "Reminders are about the day of the due date", so the key names that day: MM-DD.
  const key = opKey('reminder', { orderId: msg.orderId, day: msg.businessDate.slice(5, 10) });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: key },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
