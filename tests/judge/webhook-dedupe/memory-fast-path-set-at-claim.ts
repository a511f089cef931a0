// expect: wrong
// kind: memory-cache
// why: the process-local "seen" set is filled when the claim succeeds, before the e-mail went; if the send times out (request lost) the handler throws, and the provider's redelivery to the same handler is acked from memory, so that payment never gets its e-mail.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

const seen = new Set<string>();

export async function handleMessage(event: PaymentEvent, env: Env) {
  if (seen.has(event.eventId)) return 'ack';           // fast path, no DB round trip
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  seen.add(event.eventId);
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
