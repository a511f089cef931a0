// expect: wrong
// kind: wrong-key
// why: the claim is keyed right (order and business date), but the provider's key names only the business date ("one reminder run per day"): order 1043's reminder, due the same day, reaches the provider under order 1042's key and is answered with 1042's e-mail, so 1043 is never reminded.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: opKey('reminder-run', { businessDate: msg.businessDate }) },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
