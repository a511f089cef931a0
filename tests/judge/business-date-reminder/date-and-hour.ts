// expect: wrong
// kind: wrong-key
// why: the key holds the business date and the hour of the attempt, so the 23:59 rerun of the same day's reminders is a new operation and sends again.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const hour = new Date(env.clock.now()).getUTCHours();
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate, hour });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
