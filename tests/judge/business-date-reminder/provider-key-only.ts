// expect: wrong
// kind: no-claim
// why: the right key goes to the provider, but nothing of our own records the send, so a repeat after the provider's retention window (or with a provider that keeps no keys) reminds twice.
import { opKey, type Env, type ReceiptMessage } from 'effectively-once';

type ReminderMessage = ReceiptMessage & { businessDate: string };

export async function sendReminder(msg: ReminderMessage, env: Env) {
  const key = opKey('reminder', { orderId: msg.orderId, businessDate: msg.businessDate });
  await env.email.send({ to: msg.customer, orderId: msg.orderId, template: 'reminder' }, { idempotencyKey: key });
  return 'ack';
}
