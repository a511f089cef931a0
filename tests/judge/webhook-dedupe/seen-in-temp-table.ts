// expect: wrong
// kind: memory-cache
// why: the processed-events table is a TEMP table, private to each connection on PostgreSQL and dropped with it, so the second handler of a duplicated event finds nothing in its own copy and sends too.
import { opKey, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  await env.db.query('CREATE TEMP TABLE IF NOT EXISTS processed_events (event_id text PRIMARY KEY, done boolean NOT NULL DEFAULT false, until timestamptz NOT NULL)');
  const won = await env.db.query(
    `INSERT INTO processed_events (event_id, until) VALUES ($1, now() + interval '60 seconds')
     ON CONFLICT (event_id) DO UPDATE SET until = EXCLUDED.until
       WHERE NOT processed_events.done AND processed_events.until < now()
     RETURNING event_id`,
    [event.eventId],
  );
  if (won.rows.length === 0) {
    const r = await env.db.query<{ done: boolean }>('SELECT done FROM processed_events WHERE event_id = $1', [event.eventId]);
    return r.rows[0]?.done ? 'ack' : 'retry-later';
  }
  if (event.type === 'payment_intent.succeeded') {
    const key = opKey('webhook', { eventId: event.eventId });
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await env.db.query('UPDATE processed_events SET done = true WHERE event_id = $1', [event.eventId]);
  return 'ack';
}
