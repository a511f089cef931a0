// expect: wrong
// kind: host-clock
// why: the key holds the attempt's date in the server's time zone (New York), which is not the business date: a scheduler run near that zone's midnight sends two reminders for one day or none for the next.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const local = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(env.clock.now()));
  const key = opKey('reminder', { orderId: msg.orderId, date: local });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
