// expect: wrong
// kind: wrong-key
// why: the claim is keyed on order and business date, but the provider gets a key with the attempt's time "so each send is traceable", so a worker that takes the claim over after a crash between send and complete gives the provider a new key and the customer a second reminder that day.
import { opKey, claim, complete } from 'effectively-once';
import type { Env, ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: `${key}@${env.clock.now()}` },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
