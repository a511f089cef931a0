/**
 * Webhooks delivered more than once: the payment provider's events for one order, and one
 * "payment received" e-mail per payment.
 */
import { formatSimMoment } from '../../engine/sim-time';
import { CUSTOMER_EMAIL } from './outbox-world';
import type { Invariant } from './scenario';

export const WEBHOOK_ORDER = 1042;
export const WEBHOOKS = [{ id: 'evt_1', body: { eventId: 'evt_1', type: 'payment_intent.succeeded', orderId: WEBHOOK_ORDER, customer: CUSTOMER_EMAIL } }];
/**
 * Whether the handlers of a run with `seed` come up at 23:59:30 UTC (seeds 6, 14, 22, …): the
 * event's redeliveries arrive after midnight, and a key with the day it arrived names another event.
 */
export function nearMidnightWebhooksOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 8 === 6;
}

/** Whether a run with `seed` plays the fuller payment provider (odd seeds): webhooksFor, and a `deliveryAttempt` on each delivery. */
export function fullerProviderOn(seed: number | undefined): seed is number {
  return seed !== undefined && seed % 2 === 1;
}

/**
 * The webhooks of a run with `seed`. On odd seeds the provider first sends the payment's "created"
 * event for the same order, as real providers do (the demonstration's seed is even): a key on the
 * order alone then takes the "succeeded" event for a repeat of it. On seeds 1, 5, 9, … the customer
 * also pays the order in two instalments: a second "succeeded" event (evt_2) for the same order, a
 * payment of its own that gets its own e-mail, so a key on the event's type and order drops it.
 */
export function webhooksFor(seed: number | undefined): typeof WEBHOOKS {
  if (!fullerProviderOn(seed)) return WEBHOOKS;
  const created = { id: 'evt_0', body: { eventId: 'evt_0', type: 'payment_intent.created', orderId: WEBHOOK_ORDER, customer: CUSTOMER_EMAIL } };
  const instalment = { id: 'evt_2', body: { eventId: 'evt_2', type: 'payment_intent.succeeded', orderId: WEBHOOK_ORDER, customer: CUSTOMER_EMAIL } };
  return seed % 4 === 1 ? [created, ...WEBHOOKS, instalment] : [created, ...WEBHOOKS];
}

/** The payments ("succeeded" events) the provider sends for `orderId` in this run. */
function paymentsOf(messages: readonly { body: unknown }[], orderId: number): number {
  return messages.filter((m) => {
    const b = m.body as { type?: unknown; orderId?: unknown };
    return b.type === 'payment_intent.succeeded' && b.orderId === orderId;
  }).length;
}

/** One "payment received" e-mail per payment of the order, never more. */
export const onePaymentEmailPerPayment: Invariant = {
  id: 'at-most-one-email',
  title: 'At most one "payment received" e-mail per payment',
  check({ outcome, messages }) {
    const payments = paymentsOf(messages, WEBHOOK_ORDER);
    const sent = outcome.ledger.emails.filter((e) => e.orderId === WEBHOOK_ORDER && e.template === 'payment-received');
    if (sent.length > payments) {
      return {
        held: false,
        detail: `order ${WEBHOOK_ORDER} got ${sent.length} "payment received" e-mails for ${payments === 1 ? 'one payment' : `${payments} payments`}: ${sent.map((e) => `${e.emailId} by ${e.by} at ${formatSimMoment(e.atMs)}`).join(', ')}`,
        step: sent[payments]!.step,
      };
    }
    return { held: true, detail: `${sent.length} "payment received" e-mail${sent.length === 1 ? '' : 's'} for ${payments === 1 ? 'one payment' : `${payments} payments`}` };
  },
};

export const everyPaymentConfirmed: Invariant = {
  id: 'every-payment-confirmed',
  title: 'Every payment gets its "payment received" e-mail',
  check({ outcome, messages }) {
    const payments = paymentsOf(messages, WEBHOOK_ORDER);
    const sent = outcome.ledger.emails.filter((e) => e.orderId === WEBHOOK_ORDER && e.template === 'payment-received').length;
    if (sent >= payments) return { held: true, detail: payments === 1 ? `order ${WEBHOOK_ORDER} got its "payment received" e-mail` : `order ${WEBHOOK_ORDER} got an e-mail for each of its ${payments} payments` };
    return {
      held: false,
      detail:
        sent === 0
          ? `no "payment received" e-mail was ever sent for order ${WEBHOOK_ORDER}`
          : `order ${WEBHOOK_ORDER} was paid in ${payments} payments (evt_1 and evt_2) but got ${sent} "payment received" e-mail: one payment went unconfirmed`,
    };
  },
};
