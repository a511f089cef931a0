// expect: wrong
// kind: wrong-key
// why: businessDate.slice(0, 7) keeps the year and month, not the day, so the next business day's reminder in the same month finds the key done and is never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const day = msg.businessDate.slice(0, 7);
  const key = opKey('reminder', { orderId: msg.orderId, day });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
