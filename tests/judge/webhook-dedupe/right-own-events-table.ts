// expect: right
// kind: own-dedupe-table
// why: its own events table, keyed on the provider's event id, is claimed with a lease in one statement and marked handled after the e-mail, which carries the same key.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query(`CREATE TABLE IF NOT EXISTS webhook_events (
    event_id text PRIMARY KEY, handled boolean NOT NULL DEFAULT false, lease_until timestamptz NOT NULL)`);
  const mine = await env.db.query(
    `INSERT INTO webhook_events (event_id, lease_until) VALUES ($1, now() + interval '60 seconds')
     ON CONFLICT (event_id) DO UPDATE SET lease_until = now() + interval '60 seconds'
       WHERE NOT webhook_events.handled AND webhook_events.lease_until < now()
     RETURNING event_id`,
    [event.eventId],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ handled: boolean }>('SELECT handled FROM webhook_events WHERE event_id = $1', [event.eventId]);
    return row.rows[0]?.handled ? 'ack' : 'retry-later';
  }
  if (event.type === 'payment_intent.succeeded') {
    const key = opKey('webhook', { eventId: event.eventId });
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await env.db.query('UPDATE webhook_events SET handled = true WHERE event_id = $1', [event.eventId]);
  return 'ack';
}
