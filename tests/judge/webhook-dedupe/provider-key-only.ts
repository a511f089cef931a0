// expect: wrong
// kind: no-claim
// why: the event is deduped only by the e-mail provider's memory, which ends after its retention window, while providers go on redelivering webhooks for days.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  if (event.type === 'payment_intent.succeeded') {
    const key = opKey('webhook', { eventId: event.eventId });
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  return 'ack';
}
