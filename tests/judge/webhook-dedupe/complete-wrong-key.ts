// expect: wrong
// kind: wrong-key
// why: the claim is keyed on the event but the completion on the order, so the event's claim is never marked done; once its 60 s lease runs out a redelivery takes it over and sends the "payment received" e-mail again.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, opKey('webhook', { orderId: event.orderId }), { handled: event.type });
  return 'ack';
}
