// expect: right
// kind: stored-key
// why: the same unlocked check-and-record transaction, but the e-mail carries the event's key and the provider keeps it: if two overlapping deliveries both go on, the provider sends once; a crash before the record leaves nothing recorded, so the redelivery sends again under the same key.
import { opKey, withTransaction, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  if (event.type === 'payment_intent.succeeded') {
    const seen = await env.db.query(`SELECT 1 FROM operations WHERE op_key = $1 AND state = 'done'`, [key]);
    if (seen.rows.length > 0) return 'ack';
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' }, { idempotencyKey: key });
  }
  await withTransaction(env.db, async (tx) => {
    const seen = await tx.query('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length === 0) await tx.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING`, [key]);
  });
  return 'ack';
}
