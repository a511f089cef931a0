// expect: wrong
// kind: no-retry
// why: a delivery whose deliveryAttempt is above 1 is taken for a duplicate and acknowledged unhandled, but the provider redelivers precisely when the first attempt failed (a handler that died before its e-mail), so that payment is never confirmed.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string; deliveryAttempt?: number }

export async function handleMessage(event: PaymentEvent, env: Env) {
  // Retries are duplicates by definition: the first attempt handles the event.
  if ((event.deliveryAttempt ?? 1) > 1) return 'ack';
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
