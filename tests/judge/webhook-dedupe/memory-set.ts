// expect: wrong
// kind: memory-cache
// why: the handled event ids live in one handler's memory, which the other handler does not share and a crash wipes, so a concurrent or later delivery e-mails again.
import type { Env } from 'effectively-once';

interface PaymentEvent { eventId: string; type: string; orderId: number; customer: string }

const handled = new Set<string>();

export async function handleMessage(event: PaymentEvent, env: Env) {
  if (handled.has(event.eventId)) return 'ack';
  handled.add(event.eventId);
  if (event.type === 'payment_intent.succeeded') {
    await env.email.send({ to: event.customer, orderId: event.orderId, template: 'payment-received' });
  }
  return 'ack';
}
