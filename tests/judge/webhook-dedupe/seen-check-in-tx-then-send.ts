// expect: wrong
// kind: check-then-act
// why: the "seen?" check and the record share a transaction, but the SELECT locks nothing and the INSERT … ON CONFLICT DO NOTHING's answer is ignored: two deliveries of evt_1 overlapping on PostgreSQL both find nothing, both commit, and both send the e-mail (no provider key to catch the second).
import { opKey, withTransaction, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  const fresh = await withTransaction(env.db, async (tx) => {
    const seen = await tx.query('SELECT state FROM operations WHERE op_key = $1', [key]);
    if (seen.rows.length > 0) return false;
    await tx.query(`INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING`, [key]);
    return true;
  });
  if (fresh && event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
  }
  return 'ack';
}
