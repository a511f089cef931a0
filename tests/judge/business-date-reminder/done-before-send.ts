// expect: wrong
// kind: done-before-effect
// why: the reminder is completed before it is sent, so a worker dying between the two leaves the day's reminder done and never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  await complete(env.db, key, { sending: true });
  await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  return 'ack';
}
