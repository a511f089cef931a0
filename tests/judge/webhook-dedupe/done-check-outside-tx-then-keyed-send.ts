// expect: wrong
// kind: check-then-act
// why: the done-check is a plain read before the e-mail and the record is written in a later transaction, so a second delivery that reads while the first's record is still uncommitted finds nothing and sends again after the first handling finished: only the provider's key keeps the second e-mail from the customer, and the consumer never knew from its own record that the work was done (PostgreSQL 15 shows it; the tab's one session makes the second read wait for the COMMIT).
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
