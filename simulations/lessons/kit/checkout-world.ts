/**
 * The payment side: a charge whose response is lost after the provider acted. Retrying is right;
 * what decides between one charge and two is where the idempotency key comes from. Checkout runs
 * as a job the runner starts again when its process dies before it finished, so the same charge
 * can also come from a second call of chargeOrder: a key minted once per call (not derived from
 * the order, not stored) is new there too.
 */

import { samePriceOn, type Invariant } from './scenario';
import type { CheckoutOrder, TraceEvent } from '../../engine/types';

export const ORDER: CheckoutOrder = { id: 1042, customerId: 'cus_ada', totalCents: 4999 };
/**
 * Ada's next order, checked out half an hour later by a process of its own: a key naming the
 * customer (or a time bucket) rather than the order answers it with order 1042's charge, or a
 * refusal, instead of charging it.
 */
export const NEXT_ORDER: CheckoutOrder = { id: 1043, customerId: 'cus_ada', totalCents: 1250 };
export const NEXT_ORDER_AFTER_MS = 30 * 60_000;

/**
 * Ada's next order on seeds 2, 6, 10, …: the same amount as order 1042, as a customer who buys the
 * same thing twice pays. A key naming the customer and the amount is then answered with the first
 * charge, which different amounts would hide.
 */
export function nextOrderFor(seed: number | undefined): CheckoutOrder {
  return samePriceOn(seed) ? { ...NEXT_ORDER, totalCents: ORDER.totalCents } : NEXT_ORDER;
}

/** Which run of checkout (1 for the first, 2 after its first restart, …) was running at trace event `at`. */
function runAt(trace: readonly TraceEvent[], at: number): number {
  let run = 1;
  for (const e of trace) {
    if (e.i >= at) break;
    if (e.actor === 'checkout' && e.type === 'restart') run++;
  }
  return run;
}

export const noDoubleCharge: Invariant = {
  id: 'no-double-charge',
  title: 'No order is charged twice',
  check({ outcome }) {
    const charges = outcome.ledger.charges.filter((c) => c.orderId === ORDER.id);
    if (charges.length > 1) {
      const runs = charges.map((c) => runAt(outcome.trace, c.step));
      const label = (c: (typeof charges)[number], k: number) =>
        `${c.chargeId} ($${(c.amountCents / 100).toFixed(2)}, key ${c.key ? c.key.slice(0, 8) + '…' : 'none'}${runs[k]! > 1 ? `, by checkout's run ${runs[k]} after a crash` : ''})`;
      // A second run charging under its own key: the key was made per call, not per operation.
      const why =
        runs[1] !== runs[0] && charges[1]!.key !== undefined && charges[1]!.key !== charges[0]!.key
          ? ': the job ran chargeOrder again after checkout crashed, and the new run sent a key of its own, so the provider saw a new purchase'
          : '';
      return {
        held: false,
        detail: `order ${ORDER.id} was charged ${charges.length} times: ${charges.map(label).join(', ')}${why}`,
        step: charges[1]!.step,
      };
    }
    const next = outcome.ledger.charges.filter((c) => c.orderId === NEXT_ORDER.id);
    if (next.length > 1) {
      return { held: false, detail: `order ${NEXT_ORDER.id} was charged ${next.length} times: ${next.map((c) => c.chargeId).join(', ')}`, step: next[1]!.step };
    }
    return { held: true, detail: `${charges.length} charge for order ${ORDER.id}, ${next.length} for order ${NEXT_ORDER.id}` };
  },
};

export const orderCharged: Invariant = {
  id: 'order-charged',
  title: 'Each order is charged',
  check({ outcome }) {
    for (const order of [ORDER, NEXT_ORDER]) {
      if (!outcome.ledger.charges.some((c) => c.orderId === order.id)) return { held: false, detail: `order ${order.id} was never charged` };
    }
    return { held: true, detail: `orders ${ORDER.id} and ${NEXT_ORDER.id} were charged` };
  },
};

export const consistentAnswer: Invariant = {
  id: 'consistent-answer',
  title: 'Checkout saw the charge that happened',
  check({ outcome, observed }) {
    const next = observed['next-order'] as { value?: { chargeId?: unknown } } | { error: string } | undefined;
    const nextId = next && 'value' in next ? next.value?.chargeId : undefined;
    if (nextId !== undefined && !outcome.ledger.charges.some((c) => c.orderId === NEXT_ORDER.id && c.chargeId === nextId)) {
      const whose = outcome.ledger.charges.find((c) => c.chargeId === nextId);
      return { held: false, detail: `order ${NEXT_ORDER.id}'s checkout recorded ${String(nextId)}, ${whose ? `order ${whose.orderId}'s charge` : 'a charge the provider does not hold'}` };
    }
    const result = observed.checkout as { chargeId?: string } | { error: string } | undefined;
    const charges = outcome.ledger.charges.filter((c) => c.orderId === ORDER.id).map((c) => c.chargeId);
    if (!result) return { held: false, detail: 'checkout never finished' };
    if ('error' in result) {
      return charges.length
        ? { held: false, detail: `checkout reported failure (${result.error}) although ${charges.join(', ')} went through` }
        : { held: true, detail: 'checkout reported failure and nothing was charged' };
    }
    if (charges.length === 1 && result.chargeId === charges[0]) return { held: true, detail: `checkout recorded ${result.chargeId}, the one charge made` };
    return { held: false, detail: `checkout recorded ${result.chargeId ?? 'nothing'}, the provider holds ${charges.join(', ') || 'no charge'}` };
  },
};

