// expect: wrong
// kind: wrong-key
// why: the key's date is the attempt's date in Alaska (America/Anchorage, UTC−9), not the business date on the message: a reminder retried on another Alaskan day than the one it is for takes the wrong day's key.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const day = new Date(env.clock.now()).toLocaleDateString('en-CA', { timeZone: 'America/Anchorage' });
  const key = opKey('reminder', { orderId: msg.orderId, day });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
