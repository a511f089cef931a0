// expect: right
// kind: cte
// why: one data-modifying CTE either inserts the event's key or takes over an expired unfinished claim, so of two concurrent deliveries exactly one gets a row back and e-mails, with the key as the provider's.
import { opKey, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const mine = await env.db.query(
    `WITH fresh AS (
       INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
       ON CONFLICT (op_key) DO NOTHING
       RETURNING op_key
     ), stale AS (
       UPDATE operations SET lease_until = now() + interval '60 seconds'
       WHERE op_key = $1 AND state = 'running' AND lease_until < now() AND NOT EXISTS (SELECT 1 FROM fresh)
       RETURNING op_key
     )
     SELECT op_key FROM fresh UNION ALL SELECT op_key FROM stale`,
    [key],
  );
  if (mine.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
