// expect: right
// kind: derived-key
// why: the key names the order and the business date from the message, turned into a day number (days since 1970 of msg.businessDate read as a UTC date): one number per calendar date, whenever and wherever the attempt runs.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const [y, m, d] = msg.businessDate.split('-').map(Number);
  const dueDay = Math.round(Date.UTC(y!, m! - 1, d!) / 86_400_000);
  const key = `reminder:${msg.orderId}:${dueDay}`;
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: opKey('reminder', key) });
  await complete(env.db, key, sent);
  return 'ack';
}
