// expect: wrong
// kind: email-in-tx
// why: the event is recorded and the e-mail sent inside one transaction, so a crash after the send rolls the record back and the redelivery e-mails again.
import { opKey, withTransaction, type Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

export async function handleMessage(event: PaymentEvent, env: Env) {
  const key = opKey('webhook', { eventId: event.eventId });
  return withTransaction(env.db, async (tx) => {
    const first = await tx.query(
      `INSERT INTO operations (op_key, state, lease_until) VALUES ($1, 'done', now()) ON CONFLICT DO NOTHING RETURNING op_key`,
      [key],
    );
    if (first.rows.length === 0) return 'ack';
    if (event.type === 'payment_intent.succeeded') {
      await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
    }
    return 'ack';
  });
}
