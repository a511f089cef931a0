// expect: right
// kind: derived-key
// why: events that need no e-mail are acknowledged without touching the table, and each "succeeded" event is claimed under its own event id, sent with that key and completed, so every payment gets one e-mail however often its event arrives.
import { claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  if (event.type !== 'payment_intent.succeeded') return 'ack';
  const key = `payment-received-email:${event.eventId}`;
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  const sent = await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  await complete(env.db, key, sent);
  return 'ack';
}
