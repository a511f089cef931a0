// expect: wrong
// kind: done-late
// why: every delivery e-mails first (with the event's key) and only then records the event, looking at the record only to log a duplicate: our own table decides nothing, so a redelivery after the event was handled is stopped only by the provider's memory of the key, which ends after its retention window.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  const rec = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (rec.rows.length === 0) env.log(`duplicate delivery of ${event.eventId}`);
  return 'ack';
}
