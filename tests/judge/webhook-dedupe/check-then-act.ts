// expect: wrong
// kind: check-then-act
// why: the SELECT and the INSERT are separate statements, so two concurrent deliveries of the event both find nothing and both e-mail.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const seen = await env.db.query('SELECT 1 FROM operations WHERE op_key = $1', [key]);
  if (seen.rows.length) return 'ack';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
  }
  await env.db.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING`, [key]);
  return 'ack';
}
