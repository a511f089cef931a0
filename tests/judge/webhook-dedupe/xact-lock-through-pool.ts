// expect: wrong
// kind: pool-client-mixup
// why: pg_advisory_xact_lock is taken through env.db.query, outside any transaction, so it is released when that one statement's implicit transaction ends; the check, the send and the insert that follow run unprotected and two concurrent deliveries of the event both find nothing and both e-mail, and with no provider key a crash between the send and the insert makes the redelivery e-mail again too.
import type { Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS handled_events (event_id text PRIMARY KEY, handled_at timestamptz NOT NULL DEFAULT now())');
  // Serialise the deliveries of one event.
  await env.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [event.eventId]);
  const seen = await env.db.query('SELECT 1 FROM handled_events WHERE event_id = $1', [event.eventId]);
  if (seen.rows.length > 0) return 'ack';
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
  }
  await env.db.query('INSERT INTO handled_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING', [event.eventId]);
  return 'ack';
}
