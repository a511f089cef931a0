// expect: right
// kind: compare-and-set
// why: the event's row is created with an expired lease and taken by an UPDATE re-checking state and lease whose row count is checked, so one handler e-mails per event.
import { opKey, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', '-infinity') ON CONFLICT (op_key) DO NOTHING`,
    [key],
  );
  const took = await env.db.query(
    `UPDATE operations SET lease_until = now() + interval '60 seconds'
     WHERE op_key = $1 AND state = 'running' AND lease_until < now() RETURNING op_key`,
    [key],
  );
  if (took.rows.length !== 1) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
