// expect: wrong
// kind: done-before-effect
// why: the e-mail is sent fire-and-forget ("the provider should not hold up our 2xx"), and the event is completed and acknowledged before the send has answered, so a send that fails or times out is never seen or retried: the payment is recorded handled and never confirmed to the customer.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    // Answer the webhook fast; the e-mail goes out in the background.
    env.email
      .send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key })
      .catch((err) => env.log('background e-mail failed', String(err)));
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
