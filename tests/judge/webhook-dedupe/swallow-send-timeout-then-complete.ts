// expect: wrong
// kind: swallowed-timeout
// why: a send that times out is logged and swallowed, and the event is completed and acknowledged anyway, so when the e-mail request never reached the provider (a lost request, a 30 s timeout) the payment is recorded handled, the provider stops redelivering, and the customer never gets the "payment received" e-mail.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    try {
      await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
    } catch (err) {
      // The provider is slow sometimes; don't make the webhook fail (and get redelivered) over an e-mail.
      env.log('payment e-mail failed, moving on:', String(err));
    }
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
