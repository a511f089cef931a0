// expect: wrong
// kind: wrong-key
// why: the dedupe key is the event id's hash cut to 4 hex digits "to keep the keys short in the logs": 65,536 keys for every event the shop will ever get, so within a few hundred events two collide and a new payment's event finds an old one's key done, and its "payment received" e-mail is never sent.
import { opKey, claim, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = `wh:${opKey('webhook', { eventId: event.eventId }).slice(0, 4)}`;
  const c = await claim(env.db, key, 60);
  if (!c.owned) return c.done ? 'ack' : 'retry-later';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
