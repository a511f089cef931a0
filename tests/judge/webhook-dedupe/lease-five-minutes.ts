// expect: wrong
// kind: lease
// why: a five-minute lease ends just as the provider's tenth and last redelivery, 30 s apart, arrives, so after a handler dies holding the claim no redelivery can take it over and the event is given up on unconfirmed.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 300);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
