/** The lesson "A fresh key on every retry": Operation-derived keys. Its code is ./starter.ts and ./solution.ts. */
import { NEXT_ORDER_AFTER_MS, ORDER, consistentAnswer, nextOrderFor, noDoubleCharge, orderCharged } from '../kit/checkout-world';
import { oneShot } from '../kit/one-shot';
import { chargesFor } from '../kit/predictions';
import { exportedFunction } from '../../learner/compile';
import type { ProcessSpec } from '../../engine/scheduler';
import { NEW_YORK_LATE_EVENING_MS, TOKYO_LATE_EVENING_MS, UTC_LATE_EVENING_MS, caughtThrow, codeErrorOf, startsLate, nearBoundaryOn, WORKER_RESTART, type CodeError } from '../kit/scenario';
import type { ChargeResult, CheckoutOrder, Env } from '../../engine/types';
import { defineLesson } from '../kit/define';

/**
 * When the customer reaches checkout on a boundary seed: just before the hour (and the minute)
 * turns, just before midnight UTC (the date turns too), or just before the half minute, where a
 * time rounded to the nearest minute turns over.
 */
function lateStart(seed: number): [number, string] {
  if (seed % 32 === 3) return [3_595_000, 'the customer reaches checkout at 09:59:55, five seconds before the hour turns'];
  if (seed % 32 === 19) return [TOKYO_LATE_EVENING_MS, 'the customer reaches checkout at 14:59:55 UTC, five seconds before the hour turns and the date turns in Tokyo'];
  if (seed % 16 === 11) return [UTC_LATE_EVENING_MS, 'the customer reaches checkout at 23:59:55 UTC, five seconds before the date turns'];
  if (seed % 16 === 15) return [NEW_YORK_LATE_EVENING_MS, 'the customer reaches checkout at 23:59:55 in New York (04:59:55 UTC), five seconds before the date turns there'];
  return [25_000, 'the customer reaches checkout at 09:00:25, five seconds before the half minute, where a time rounded to the minute turns over'];
}

/**
 * On seeds 5, 13, 21, …: one checkout process runs both jobs, order 1042's and, half an hour
 * later, 1043's (elsewhere 1043 gets a process of its own). A key kept per process then names two
 * purchases.
 */
function oneRunnerOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 8 === 5;
}

/**
 * On seeds 9, 17, 25, …: the job runner starts a dead checkout again only two minutes later (a new
 * host), after any one-minute claim of the dead run has expired: a key drawn afresh by the run that
 * takes such a claim over is a new charge.
 */
function lateRestartOn(seed: number | undefined): boolean {
  return seed !== undefined && seed > 1 && seed % 8 === 1;
}
const LATE_RESTART = { ...WORKER_RESTART, restartDelayMs: 120_000 };

export default defineLesson({
  id: 'random-key-on-retry',
  title: 'A fresh key on every retry',
  summary: 'A charge times out after the provider acted. A UUID minted inside the retry loop makes the retry look like new work; a key derived from the order does not.',
  concept: 'Operation-derived keys',
  entry: 'chargeOrder',
  brief: [
    'A timeout after the request was sent leaves you not knowing whether the provider acted. Retrying is the right move — and it is exactly what an idempotency key is for.',
    'Here the first charge goes through but its response is lost. The starter retries with a key, but mints a new UUID inside the loop, so to the provider every attempt is new work. (Half an hour later Ada checks out again, order 1043: a purchase of its own, which must be charged too.)',
    'Derive the key from what the operation is — charging order 1042 — so every attempt, redelivery or rerun sends the same one.',
    'Checkout runs as a job: if its process dies before the job finishes, the job runner starts it again and chargeOrder runs from the top. A UUID made once per call, outside the loop, is new on that second run. A random key only works if it is stored with the work before its first use.',
    'On seeds 3, 35, 67, … Explore has the customer reach checkout at 09:59:55, on seeds 19, 51, 83, … at 14:59:55 UTC (23:59:55 in Tokyo), on seeds 11, 27, 43, … at 23:59:55 UTC, on seeds 15, 31, 47, … at 23:59:55 in New York, and on seeds 7, 23, 39, … at 09:00:25: a retry then falls in the next minute, the next hour or the next day (in UTC, Tokyo or New York), or past the half minute where a time rounded to the minute turns over. A key must not change when the clock does.',
    'On seeds 2, 6, 10, … Ada\'s second order costs the same as her first, $49.99: a key built from the customer and the amount names two purchases at once.',
    'On seeds 5, 13, 21, … one checkout process runs both jobs, order 1042\'s and then 1043\'s: a key kept per process names both purchases.',
    'On seeds 9, 17, 25, … the job runner starts a dead checkout again only two minutes later, on a new host, when any one-minute claim the dead run left has expired: a run that takes such a claim over must charge under the key the dead run used, not one of its own.',
  ],
  explanations: {
    starter: 'A new random key per attempt: the provider cannot tell the retry from a new purchase, and charges again.',
    solution: 'opKey("charge", { orderId }) is the same on every attempt and on every run of the job; the provider recognises it and returns the original charge (replayed: true).',
  },
  build(mod, variation) {
    const chargeOrder = exportedFunction<(order: CheckoutOrder, env: Env) => Promise<ChargeResult>>(mod, 'chargeOrder');
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    let runs = 0;
    const nextOrder = nextOrderFor(variation?.seed);
    const oneRunner = oneRunnerOn(variation?.seed);
    /** The job the checkout process is on (the job runner starts that one again after a crash), and when its first run began. */
    let job: 'first' | 'next' = 'first';
    let startedAt: number | null = null;
    const checkout: ProcessSpec = {
      id: 'checkout',
      // Checkout is a job: when its process dies before the job finished, the job runner starts it
      // again (as a queue redelivers an unacknowledged message), and chargeOrder is called anew.
      restart: lateRestartOn(variation?.seed) ? LATE_RESTART : WORKER_RESTART,
      async main(env) {
        startedAt ??= env.clock.now();
        const current = job === 'first' ? ORDER : nextOrder;
        if (++runs > 1) env.log(`run ${runs}: the job runner starts the checkout of order ${current.id} again (the last run died before it finished) and calls chargeOrder anew`);
        if (job === 'first') {
          try {
            const result = await chargeOrder({ ...ORDER }, env);
            observed.checkout = { chargeId: result?.chargeId };
            env.log(`records charge ${result?.chargeId}`);
          } catch (err) {
            const { said } = caughtThrow(err);
            const recorded = codeErrorOf('checkout', err);
            if (recorded) codeErrors.push(recorded);
            observed.checkout = { error: said };
            env.log(`checkout gives up: ${said}`);
          }
          if (!oneRunner) return;
          job = 'next';
        }
        // The next job is due half an hour after the first began (a restart while waiting waits the rest).
        const wait = startedAt + NEXT_ORDER_AFTER_MS - env.clock.now();
        if (wait > 0) {
          await env.sleep(wait);
          env.log(`half an hour later the same customer checks out again, and this checkout process runs that job too: order ${nextOrder.id}, $${(nextOrder.totalCents / 100).toFixed(2)}`);
        }
        try {
          const value = await chargeOrder({ ...nextOrder }, env);
          observed['next-order'] = { value };
          env.log(`records charge ${value?.chargeId} for order ${nextOrder.id}`);
        } catch (err) {
          const { said } = caughtThrow(err);
          const recorded = codeErrorOf('checkout', err);
          if (recorded) codeErrors.push(recorded);
          observed['next-order'] = { error: said };
          env.log(`checkout of order ${nextOrder.id} gives up: ${said}`);
        }
      },
    };
    return {
      spec: {
        processes: [
          nearBoundaryOn(variation?.seed) ? startsLate(checkout, ...lateStart(variation!.seed)) : checkout,
          ...(oneRunner
            ? []
            : [
                oneShot('next-order', (env) => chargeOrder({ ...nextOrder }, env), observed, codeErrors, {
                  startAfterMs: NEXT_ORDER_AFTER_MS,
                  why: `half an hour later the same customer checks out again: order ${nextOrder.id}, $${(nextOrder.totalCents / 100).toFixed(2)}${nextOrder.totalCents === ORDER.totalCents ? ', the same amount as order ' + ORDER.id : ''}`,
                }),
              ]),
        ],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000 },
        // Two hours after the checkout starts (at 23:59:55 on some seeds): it still has its retries and a rerun inside it.
        horizonMs: 2 * 3_600_000 + (nearBoundaryOn(variation?.seed) ? lateStart(variation!.seed)[0] : 0),
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
  actors: ['checkout', 'next-order', 'postgres', 'payments'],
  crashable: ['checkout'],
  lossy: 'payments.charge',
  prediction: { prompt: "The first charge's response is lost and checkout retries. How many times will order 1042 be charged?", ...chargesFor(1042) },
  hints: {
    nudge: 'Run the demonstration and read the two charge attempts in the event log: what idempotency key did each carry? Then read the provider\'s ledger: did it recognise the retry?',
    targeted: [
      {
        id: 'no-double-charge/crash-checkout',
        invariant: 'no-double-charge',
        fault: { kind: 'crash', process: 'checkout' },
        text: 'Checkout died and the job ran chargeOrder again from the top: whatever your key was made of was made again. Replay it and compare the two keys. A key derived from the order is the same on the rerun; a random one survives only if it was stored with the work before its first use.',
      },
      {
        id: 'no-double-charge',
        invariant: 'no-double-charge',
        text: 'The order was charged twice: the retry\'s key differed from the first attempt\'s. A UUID, an attempt number, a start time or a value in memory all change between attempts or processes. Derive the key from the operation: opKey(\'charge\', { orderId }).',
      },
      {
        id: 'order-charged',
        invariant: 'order-charged',
        text: 'The order was never charged. Look at what happens after a timeout or a lost request: the charge must be retried (with the same key) until the provider answers.',
      },
      {
        id: 'consistent-answer',
        invariant: 'consistent-answer',
        text: 'Checkout reported something other than the charge that happened. A timeout means "unknown", not "failed": retry with the same key and report the charge the provider returns.',
      },
    ],
  },
  questions: [
    {
      id: 'random-key-on-retry-two-charges',
      prompt: 'Checkout calls the payment provider with idempotencyKey: env.random.uuid(), generated inside its retry loop. The first charge\'s response is lost and checkout retries. What happens to the customer\'s card?',
      choices: [
        { id: 'one-charge', text: 'One charge: the provider recognises the retry as the same checkout and returns the first' },
        {
          id: 'two-charges',
          text: 'Two charges: each attempt carries a new key, so the provider sees two unrelated requests',
        },
        {
          id: 'refused',
          text: 'The retry is refused with an idempotency error, because the order already has a key',
        },
        {
          id: 'no-charge',
          text: 'No charge stays: the provider cancels the first charge once the caller has timed out',
        },
      ],
      correct: 'two-charges',
      explanation: 'A key only helps if it is the same on every attempt of the same operation. Minted inside the retry loop, it is new each time, so the provider has nothing to match and charges again. Nothing is refused either (to the provider a new key is a new request), and a charge is not taken back because its caller stopped waiting. Derive it from the order — opKey(\'charge\', { orderId }) — or create it once when the charge is decided and store it; then the retry gets back the original charge.',
      see: {
        scenario: 'random-key-on-retry',
        variant: 'starter',
        seed: 1,
        faults: [{ kind: 'lose-response', call: 'payments.charge', nth: 1 }],
        step: 5,
        expect: 'violated',
        invariant: 'no-double-charge',
      },
    },
    {
      id: 'random-key-on-retry-derived-key',
      prompt: 'With opKey(\'charge\', { orderId }) as the key, the first response is lost and checkout retries. What does the provider do with the retry?',
      choices: [
        { id: 'original', text: 'It returns the original charge and charges nothing new' },
        { id: 'second', text: 'It charges again, because the first request timed out' },
        { id: 'error', text: 'It refuses the retry as a duplicate, and checkout reports a failure' },
      ],
      correct: 'original',
      explanation: 'The retry carries the same key with the same parameters, which is exactly the case the provider remembers keys for: it answers with the charge it already made. Checkout records the one charge that happened. A refusal comes when a key is reused with different parameters — a sign that two different operations share a key — and, at Stripe, when the retry arrives while the first request with that key is still being processed (a conflict worth retrying a moment later, with the same key).',
      see: {
        scenario: 'random-key-on-retry',
        variant: 'solution',
        seed: 1,
        faults: [{ kind: 'lose-response', call: 'payments.charge', nth: 1 }],
        expect: 'held',
        invariant: 'no-double-charge',
      },
    },
  ],
});
