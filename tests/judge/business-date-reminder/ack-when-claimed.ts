// expect: wrong
// kind: no-retry
// why: a delivery that finds the day's reminder claimed but not done acknowledges it, so when the worker holding the claim died before sending, that day's reminder is never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return 'ack';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
