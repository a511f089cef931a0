// expect: wrong
// kind: done-before-effect
// why: the event is recorded done before the e-mail goes, so a handler dying in between leaves a paid order that never hears about it.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const first = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING RETURNING op_key`,
    [key],
  );
  if (first.rows.length === 0) return 'ack';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  return 'ack';
}
