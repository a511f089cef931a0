// expect: right
// kind: derived-key
// why: the key is the plain string "payment-webhook:" plus the event id, which names the event the same way on every delivery and no other event, and it serves as both the claim's key and the e-mail's idempotency key.
import { claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = `payment-webhook:${event.eventId}`;
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    const sent = await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
    await complete(env.db, key, sent);
  } else {
    await complete(env.db, key, { ignored: event.type });
  }
  return 'ack';
}
