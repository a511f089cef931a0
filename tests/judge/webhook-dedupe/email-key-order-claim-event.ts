// expect: wrong
// kind: wrong-key
// why: the claim is keyed right, on the event, but the e-mail's idempotency key names only the order, so a second payment event for the same order (a second instalment) is answered by the provider as a replay of the first e-mail and never confirmed.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    const emailKey = opKey('payment-email', { orderId: event.orderId });
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: emailKey });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
