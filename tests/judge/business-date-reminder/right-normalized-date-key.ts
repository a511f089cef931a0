// expect: right
// kind: derived-key
// why: the business date is parsed as a UTC calendar day and written back as YYYY-MM-DD before it goes into the key, which changes nothing for a well-formed date: the key is still this order's reminder for that business date.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

function businessDay(date: string): string {
  const d = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) throw new Error(`not a business date: ${date}`);
  return d.toISOString().slice(0, 10);
}

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: businessDay(msg.businessDate) });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
