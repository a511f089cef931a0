// expect: right
// kind: derived-key
// why: the business date is parsed (as UTC midnight) and shown as a New York calendar date, which shifts every date back by one day the same way; the mapping is still one-to-one, so the key still names exactly this order's reminder for this business date, whatever the clock or zone of the attempt.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  // Show the day the way the shop (New York) writes it.
  const day = new Date(msg.businessDate).toLocaleDateString('en-US', { timeZone: 'America/New_York' });
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
