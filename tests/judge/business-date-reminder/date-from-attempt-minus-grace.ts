// expect: wrong
// kind: wrong-key
// why: the business date is taken from the attempt's time minus a four-hour grace ("a day's run may spill past midnight"), which is still the attempt and not the date the reminder is for: a reminder delayed past 04:00 (a backlog, a redrive from the dead-letter queue) is filed under the next day, sends a second reminder for its date and takes the next day's key.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

const GRACE_MS = 4 * 3_600_000;

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const businessDate = new Date(env.clock.now() - GRACE_MS).toISOString().slice(0, 10);
  const key = opKey('reminder', { orderId: msg.orderId, businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
