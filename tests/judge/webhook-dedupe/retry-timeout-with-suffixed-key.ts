// expect: wrong
// kind: swallowed-timeout
// why: a timed-out send is retried at once under the key plus ':retry', a key the provider never saw, so when the timeout lost the response rather than the request (the e-mail went) the retry sends a second "payment received" e-mail.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    const req = { to: event.customer, orderId: event.orderId, template: 'payment-received' };
    try {
      await env.email.send(req, { idempotencyKey: key });
    } catch {
      // the first request timed out: the provider would treat the same key as in flight, so retry under a fresh one
      await env.email.send(req, { idempotencyKey: `${key}:retry` });
    }
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
