// expect: wrong
// kind: wrong-key
// why: the dedupe key (and the e-mail's idempotency key) is the event id plus the UTC day the delivery arrived, so the key is per-delivery-day, not per event: a provider retrying an event past midnight (real providers retry for days) finds no record and no provider key, and the customer gets a second "payment received" e-mail.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  // One row per event per day: yesterday's rows can be pruned without losing today's dedupe.
  const day = new Date(env.clock.now()).toISOString().slice(0, 10);
  const key = opKey('webhook', { eventId: event.eventId, day });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
