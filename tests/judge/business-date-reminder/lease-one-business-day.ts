// expect: wrong
// kind: lease
// why: the key is right (order and business date) but the claim's lease is a whole day "since a reminder is daily": when a worker dies after its claim and before the send (crash after db), every redelivery finds the claim live and comes back later until the queue gives up, so that day's reminder is never sent.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 24 * 60 * 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: key },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
