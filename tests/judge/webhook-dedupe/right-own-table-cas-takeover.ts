// expect: right
// kind: compare-and-set
// why: an own table keyed on the event id; the row is taken by INSERT … ON CONFLICT DO NOTHING (rowCount checked) or by a compare-and-set UPDATE of an expired, unfinished row (rowCount checked), the e-mail goes with the event's key, and done is written after it.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query(
    `CREATE TABLE IF NOT EXISTS webhook_events (
       event_id text PRIMARY KEY, status text NOT NULL, locked_until timestamptz NOT NULL)`,
  );
  const ins = await env.db.query(
    `INSERT INTO webhook_events (event_id, status, locked_until) VALUES ($1, 'processing', now() + interval '60 seconds')
     ON CONFLICT (event_id) DO NOTHING`,
    [event.eventId],
  );
  if (ins.rowCount !== 1) {
    const took = await env.db.query(
      `UPDATE webhook_events SET locked_until = now() + interval '60 seconds'
        WHERE event_id = $1 AND status = 'processing' AND locked_until < now()`,
      [event.eventId],
    );
    if (took.rowCount !== 1) {
      const { rows } = await env.db.query<{ status: string }>('SELECT status FROM webhook_events WHERE event_id = $1', [event.eventId]);
      return rows[0]?.status === 'processed' ? 'ack' : 'retry-later';
    }
  }
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send(
      { to: event.customer, orderId: event.orderId, template: 'payment-received' },
      { idempotencyKey: opKey('payment-received', { eventId: event.eventId }) },
    );
  }
  await env.db.query(`UPDATE webhook_events SET status = 'processed' WHERE event_id = $1`, [event.eventId]);
  return 'ack';
}
