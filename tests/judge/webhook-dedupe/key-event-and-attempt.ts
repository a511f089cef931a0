// expect: wrong
// kind: wrong-key
// why: the key holds the event id and the delivery attempt, which a real provider changes on every redelivery, so a redelivery after a handler died is new work and e-mails the customer again.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string; deliveryAttempt?: number }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId, attempt: event.deliveryAttempt ?? 1 });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
