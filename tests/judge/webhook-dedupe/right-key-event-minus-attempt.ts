// expect: right
// kind: derived-key
// why: the key is the whole event with its per-delivery deliveryAttempt taken out (opKey sorts fields, so the order the provider lists them in does not matter), which leaves fields fixed for one event and different between events: every delivery of evt_1 claims the same key and evt_0, evt_2 get keys of their own.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string; deliveryAttempt?: number }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const { deliveryAttempt: _attempt, ...stable } = event;
  const key = opKey('webhook', stable);
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
