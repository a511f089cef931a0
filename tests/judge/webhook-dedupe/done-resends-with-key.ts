// expect: wrong
// kind: no-claim
// why: a delivery that finds the event done sends the e-mail again "to be safe" under the same key, trusting the provider to dedupe, so every redelivery after the first handling finished rests on the provider's key memory alone (own-record), and on a provider without keys (or after 24 h) the customer gets another e-mail.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned && !c.done) return 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    // even when done: the provider dedupes on the key, and a resend covers a send we never saw confirmed
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  if (c.owned) await complete(env.db, key, { handled: event.type });
  return 'ack';
}
