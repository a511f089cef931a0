// expect: wrong
// kind: check-then-act
// why: a session advisory lock per event guards the "already handled?" check and the send, but it is let go right after the send and before the handled row is written, so a second delivery waiting on the lock gets it in that gap, finds no row and e-mails again; and as the send carries no key and is recorded after it, a handler dying between the send and the record also leaves the redelivery to e-mail again.
import type { Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS handled_events (event_id text PRIMARY KEY, handled_at timestamptz NOT NULL DEFAULT now())');
  const client = await env.db.connect();
  let sent = false;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [event.eventId]);
    try {
      const seen = await client.query('SELECT 1 FROM handled_events WHERE event_id = $1', [event.eventId]);
      if (seen.rows.length === 0 && event.type === 'payment_intent.succeeded') {
        await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
        sent = true;
      }
    } finally {
      // Only the check and the send need the lock; recording is idempotent anyway.
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [event.eventId]);
    }
    await client.query('INSERT INTO handled_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING', [event.eventId]);
  } finally {
    client.release();
  }
  env.log(sent ? 'e-mail sent' : 'nothing to send');
  return 'ack';
}
