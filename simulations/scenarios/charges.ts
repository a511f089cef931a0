/**
 * The payment side: a charge whose response is lost after the provider acted. Retrying is right;
 * what decides between one charge and two is where the idempotency key comes from. Checkout runs
 * as a job the runner starts again when its process dies before it finished, so the same charge
 * can also come from a second call of chargeOrder: a key minted once per call (not derived from
 * the order, not stored) is new there too.
 */
import { exportedFunction } from '../learner/compile';
import type { ProcessSpec } from '../engine/scheduler';
import { caughtThrow, WORKER_RESTART, type CodeError, type Invariant, type Scenario } from '../lessons/kit/scenario';
import type { ChargeResult, CheckoutOrder, Env, TraceEvent } from '../engine/types';

const ORDER: CheckoutOrder = { id: 1042, customerId: 'cus_ada', totalCents: 4999 };

/** Which run of checkout (1 for the first, 2 after its first restart, …) was running at trace event `at`. */
function runAt(trace: readonly TraceEvent[], at: number): number {
  let run = 1;
  for (const e of trace) {
    if (e.i >= at) break;
    if (e.actor === 'checkout' && e.type === 'restart') run++;
  }
  return run;
}

const noDoubleCharge: Invariant = {
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
    return { held: true, detail: `${charges.length} charge for order ${ORDER.id}` };
  },
};

const orderCharged: Invariant = {
  id: 'order-charged',
  title: 'The order is charged',
  check({ outcome }) {
    return outcome.ledger.charges.some((c) => c.orderId === ORDER.id)
      ? { held: true, detail: `order ${ORDER.id} was charged` }
      : { held: false, detail: `order ${ORDER.id} was never charged` };
  },
};

const consistentAnswer: Invariant = {
  id: 'consistent-answer',
  title: 'Checkout saw the charge that happened',
  check({ outcome, observed }) {
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

export const randomKeyOnRetry: Scenario = {
  id: 'random-key-on-retry',
  title: 'A fresh key on every retry',
  entry: 'chargeOrder',
  brief: [
    'A timeout after the request was sent leaves you not knowing whether the provider acted. Retrying is the right move — and it is exactly what an idempotency key is for.',
    'Here the first charge goes through but its response is lost. The starter retries with a key, but mints a new UUID inside the loop, so to the provider every attempt is new work.',
    'Derive the key from what the operation is — charging order 1042 — so every attempt, redelivery or rerun sends the same one.',
    'Checkout runs as a job: if its process dies before the job finishes, the job runner starts it again and chargeOrder runs from the top. A UUID made once per call, outside the loop, is new on that second run. A random key only works if it is stored with the work before its first use.',
  ],
  variants: {
    starter: {
      label: 'Starter',
      explanation: 'A new random key per attempt: the provider cannot tell the retry from a new purchase, and charges again.',
      code: `import type { CheckoutOrder, Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: env.random.uuid() },       // minted on every attempt
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);               // back off, then retry
    }
  }
}
`,
    },
    solution: {
      label: 'Solution',
      explanation:
        'opKey("charge", { orderId }) is the same on every attempt and on every run of the job; the provider recognises it and returns the original charge (replayed: true).',
      code: `import { opKey, type CheckoutOrder, type Env } from 'effectively-once';

export async function chargeOrder(order: CheckoutOrder, env: Env) {
  const key = opKey('charge', { orderId: order.id });  // decided once, by the operation
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.payments.charge(
        { orderId: order.id, amountCents: order.totalCents, customer: order.customerId },
        { idempotencyKey: key },
      );
    } catch (err) {
      if (attempt === 4) throw err;
      await env.sleep(1000 * attempt);
    }
  }
}
`,
    },
  },
  build(mod) {
    const chargeOrder = exportedFunction<(order: CheckoutOrder, env: Env) => Promise<ChargeResult>>(mod, 'chargeOrder');
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    let runs = 0;
    const checkout: ProcessSpec = {
      id: 'checkout',
      // Checkout is a job: when its process dies before the job finished, the job runner starts it
      // again (as a queue redelivers an unacknowledged message), and chargeOrder is called anew.
      restart: WORKER_RESTART,
      async main(env) {
        if (++runs > 1) env.log(`run ${runs}: the job runner starts the checkout of order ${ORDER.id} again (the last run died before it finished) and calls chargeOrder anew`);
        try {
          const result = await chargeOrder({ ...ORDER }, env);
          observed.checkout = { chargeId: result?.chargeId };
          env.log(`records charge ${result?.chargeId}`);
        } catch (err) {
          const { what, said, loc, fromLearner } = caughtThrow(err);
          if (fromLearner) codeErrors.push({ process: 'checkout', message: what, ...loc });
          observed.checkout = { error: said };
          env.log(`checkout gives up: ${said}`);
        }
      },
    };
    return {
      spec: {
        processes: [checkout],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000 },
        horizonMs: 3_600_000,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [{ kind: 'lose-response', call: 'payments.charge', nth: 1 }],
    story: 'The first charge is applied, but its response never arrives: checkout times out after 5 s and retries.',
  },
  faultMenu: [
    // Checkout dies after the provider acted and before it learned so: the job runs again, and
    // only a key that is the same for every run of the operation (derived, or stored before use)
    // stops a second charge.
    { kind: 'crash', process: 'checkout', after: 'payments.charge', nth: 1 },
    { kind: 'crash', process: 'checkout', after: 'payments.charge', nth: 2 },
    { kind: 'lose-response', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'payments.charge', nth: 2 },
    { kind: 'lose-request', call: 'payments.charge', nth: 1 },
    { kind: 'slow-response', call: 'payments.charge', nth: 2, ms: 8_000 },
  ],
  maxFaults: 3,
  invariants: [noDoubleCharge, orderCharged, consistentAnswer],
  tables: ['operations'],
  actors: ['checkout', 'postgres', 'payments'],
};
