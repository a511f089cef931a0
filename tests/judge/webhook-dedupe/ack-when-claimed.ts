// expect: wrong
// kind: no-retry
// why: a delivery that finds the event claimed but not done acknowledges it as handled, so when the handler holding the claim dies before e-mailing, the provider stops redelivering and the payment is never confirmed.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return 'ack';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
