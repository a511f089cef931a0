// expect: wrong
// kind: wrong-key
// why: the key holds the UTC date of the attempt, so the 23:59 rerun redelivered after midnight is keyed on the next day: a second reminder for the 5th, and the 6th's key taken.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, date: new Date(env.clock.now()).toISOString().slice(0, 10) });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
