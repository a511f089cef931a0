// expect: wrong
// kind: no-retry
// why: events that need no e-mail are answered 'retry-later' ("not ours") instead of being acknowledged, so the provider redelivers the payment's created event until it gives up on it: every event must be acknowledged once handled, even when handling it means doing nothing.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  if (event.type !== 'payment_intent.succeeded') return 'retry-later';
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
