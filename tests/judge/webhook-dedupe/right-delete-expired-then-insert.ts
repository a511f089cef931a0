// expect: right
// kind: first-writer-wins
// why: an expired unfinished claim on the event is deleted, then the event's key is inserted with ON CONFLICT DO NOTHING and its row count read: one delivery wins, live and done claims are never deleted, and the e-mail carries the key.
import { opKey, complete, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  await env.db.query(`DELETE FROM operations WHERE op_key = $1 AND state = 'running' AND lease_until < now()`, [key]);
  const ins = await env.db.query(
    `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'running', now() + interval '60 seconds')
     ON CONFLICT (op_key) DO NOTHING RETURNING op_key`,
    [key],
  );
  if (ins.rows.length === 0) {
    const row = await env.db.query<{ state: string }>('SELECT state FROM operations WHERE op_key = $1', [key]);
    return row.rows[0]?.state === 'done' ? 'ack' : 'retry-later';
  }
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await complete(env.db, key, { handled: event.type });
  return 'ack';
}
