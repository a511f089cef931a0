// expect: wrong
// kind: wrong-key
// why: the event is claimed under its id but the e-mail's key adds the delivery attempt, which changes on every redelivery, so after a crash between the send and complete the takeover sends under a new key and the customer gets a second e-mail.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string; deliveryAttempt?: number }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    // One request id per delivery we answer, as the provider's own delivery ids are.
    const requestKey = opKey('payment-email', { eventId: event.eventId, attempt: event.deliveryAttempt ?? 1 });
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: requestKey });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
