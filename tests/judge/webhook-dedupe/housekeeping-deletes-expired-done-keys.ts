// expect: wrong
// kind: lease
// why: each delivery first clears out finished keys whose lease has run out, taking the lease for a retention period, so a finished event's key is gone a minute after its claim; the provider delivers the same event again later than that (a copy it failed to take back, a retry hours on), the event is claimed afresh and the e-mail goes out again, kept from the customer only by the provider's memory of its key.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  // Housekeeping: a finished key is only needed while its lease runs.
  await env.db.query(`DELETE FROM operations WHERE state = 'done' AND lease_until < now()`);
  const key = opKey('webhook', { eventId: event.eventId });
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
