// expect: wrong
// kind: wrong-key
// why: the claim is keyed on the order and its business date, but the e-mail's idempotency key names only the order, so the next business day's reminder reaches the provider under yesterday's key, is answered as a replay and never sent.
import { opKey, claim, complete, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send(
    { to: msg.customer, orderId: msg.orderId, template: 'reminder' },
    { idempotencyKey: opKey('reminder-email', { orderId: msg.orderId }) },
  );
  await complete(env.db, key, sent);
  return 'ack';
}
