/** The lesson "The charge that timed out": Provider retention. Its code is ./starter.ts and ./solution.ts. */
import { HOUR_MS, NEXT_DAY_RERUN_MS, NEXT_ORDER, NEXT_ORDER_AFTER_MS, TIMEOUT_ORDER, everyoneSawTheCharge, nextOrderFor, timeoutOrderCharged } from '../kit/key-worlds';
import { chargesFor } from '../kit/predictions';
import { exportedFunction } from '../../learner/compile';
import { NEW_YORK_LATE_EVENING_MS, TOKYO_LATE_EVENING_MS, UTC_LATE_EVENING_MS, startsLate, type CodeError } from '../kit/scenario';
import type { CheckoutOrder, Env } from '../../engine/types';
import type { ProcessSpec } from '../../engine/scheduler';
import { humanDuration, noDoubleCharge, oneShot } from '../kit/one-shot';
import { defineLesson } from '../kit/define';

/**
 * On seeds 3, 19, 35, …: everything happens 14 h 59 min 55 s later, checkout at 23:59:55 UTC, so
 * its retry falls on the next date; on seeds 11, 27, 43, … 5 h 59 min 55 s later, at 23:59:55 in
 * Tokyo, where the date turns nine hours before UTC's; on seeds 7, 15, 23, … 19 h 59 min 55 s
 * later, at 23:59:55 in New York, where it turns five hours after.
 */
function lateEveningOn(seed: number | undefined): { ms: number; checkout: string; day: string } | null {
  if (seed === undefined) return null;
  if (seed % 16 === 3) return { ms: UTC_LATE_EVENING_MS, checkout: 'on this seed checkout runs at 23:59:55 UTC, five seconds before the date turns', day: 'on this seed the whole day runs 14 h 59 min 55 s later' };
  if (seed % 16 === 11) return { ms: TOKYO_LATE_EVENING_MS, checkout: 'on this seed checkout runs at 14:59:55 UTC (23:59:55 in Tokyo), five seconds before the date turns there', day: 'on this seed the whole day runs 5 h 59 min 55 s later' };
  if (seed % 8 === 7) return { ms: NEW_YORK_LATE_EVENING_MS, checkout: 'on this seed checkout runs at 23:59:55 in New York (04:59:55 UTC), five seconds before the date turns there', day: 'on this seed the whole day runs 19 h 59 min 55 s later' };
  return null;
}

/** Seeds 2, 4, 6, …: the job queue retries a checkout that did not return. */
const jobRetryOn = (seed: number | undefined) => seed !== undefined && seed % 2 === 0;
/** When the job queue retries a checkout that did not return, and how often after that. */
const JOB_RETRY_AFTER_MS = 15 * 60_000;
/** How many times it tries: two hours of retries, past any lease a checkout would take. */
const JOB_RETRY_ATTEMPTS = 8;

/**
 * The job queue's retry of checkout (`retry`, a one-shot of chargeOrder): JOB_RETRY_AFTER_MS after
 * checkout began it runs `retry` if checkout did not return (it threw, or crashed), inside the
 * provider's day; else it does nothing and reports nothing.
 */
function retryJob(retry: ProcessSpec, observed: Record<string, unknown>): ProcessSpec {
  return {
    ...retry,
    async main(env) {
      await env.sleep(JOB_RETRY_AFTER_MS);
      const checkout = observed.checkout;
      if (typeof checkout === 'object' && checkout !== null && 'value' in checkout) {
        env.log('checkout returned: nothing to retry');
        return;
      }
      env.log(`checkout did not return: ${humanDuration(JOB_RETRY_AFTER_MS)} after it began, the job queue retries it (and again every ${humanDuration(JOB_RETRY_AFTER_MS)}, up to ${JOB_RETRY_ATTEMPTS} times)`);
      await retry.main(env);
    },
  };
}

export default defineLesson({
  id: 'ambiguous-timeout-charge',
  title: 'The charge that timed out',
  summary: 'A charge times out after the request left. Without a key the retry charges twice; with one the provider returns the original — while it remembers the key (24 hours here). The next-day rerun is caught only by our own operations table.',
  concept: 'Provider retention',
  entry: 'chargeOrder',
  brief: [
    'A timeout after the request left tells you nothing: the provider may have charged the card, or never seen the request. The only safe answer is to retry with a key that makes the retry harmless.',
    'Here checkout charges order 2077 and the response is lost. The starter retries with no key, so the provider charges again. An hour later Grace buys again (order 2078, a charge of its own). The next day a rerun of yesterday\'s checkouts calls chargeOrder for 2077 once more.',
    'A key derived from the order makes the provider return the original charge to a retry (and refuse the key if a request under it asks for a different amount). But the provider may forget a key once it is 24 hours old (Stripe keeps keys for at least 24 hours): only your own operations table — claim, complete, and return the stored result — still knows on day two. That table answers from what it stored and does not compare amounts: a key reused for other work gets the old charge back, so derive it from the operation.',
    'It knows only what was marked done. A run that ends without complete leaves the operation running: a crash after the charge went through, or four timeouts in a row after which checkout gives up not knowing. A takeover on day two, after the provider forgot the key, then charges again. No key closes that gap: only asking the provider what it already charged for the order (reconciliation) does, so Explore does not count it against your code, and never loses more than two answers in a row. On even seeds, though, the job queue retries a checkout that did not return 15 minutes later, while the provider still knows the key: under the key the first attempt used, it gets the first charge back and records it.',
    'On seeds 3, 19, 35, … checkout runs at 23:59:55 UTC, on seeds 11, 27, 43, … at 23:59:55 in Tokyo (14:59:55 UTC), and on seeds 7, 15, 23, … at 23:59:55 in New York, so a retry falls on the next date there: a key must not carry the date, in any time zone.',
  ],
  explanations: {
    starter: 'Retries the timed-out charge with no idempotency key: the provider cannot tell the retry from a new purchase. The next-day rerun charges a third time.',
    solution: 'The key comes from the order. Retries within the day are answered by the provider from the key (replayed: true); the rerun the next day is answered by our own operations table, which still holds the charge after the provider forgot the key.',
  },
  build(mod, variation) {
    const chargeOrder = exportedFunction<(order: CheckoutOrder, env: Env) => Promise<unknown>>(mod, 'chargeOrder');
    const next = nextOrderFor(variation?.seed);
    const observed: Record<string, unknown> = {};
    const codeErrors: CodeError[] = [];
    const late = lateEveningOn(variation?.seed);
    const shifted = (spec: ProcessSpec): ProcessSpec =>
      late ? startsLate(spec, late.ms, spec.id === 'checkout' ? late.checkout : late.day) : spec;
    return {
      spec: {
        processes: [
          oneShot('checkout', (env) => chargeOrder({ ...TIMEOUT_ORDER }, env), observed, codeErrors),
          // On even seeds the job queue retries a checkout that did not return, inside the provider's day.
          ...(jobRetryOn(variation?.seed) ? [retryJob(oneShot('checkout-2', (env) => chargeOrder({ ...TIMEOUT_ORDER }, env), observed, codeErrors, { attempts: JOB_RETRY_ATTEMPTS, retryDelayMs: JOB_RETRY_AFTER_MS }), observed)] : []),
          oneShot('rerun', (env) => chargeOrder({ ...TIMEOUT_ORDER }, env), observed, codeErrors, {
            startAfterMs: NEXT_DAY_RERUN_MS,
            why: `the next day (${humanDuration(NEXT_DAY_RERUN_MS)} later) someone reruns yesterday's checkouts, order ${TIMEOUT_ORDER.id} included; the provider has forgotten its keys by now`,
          }),
          oneShot('next-order', (env) => chargeOrder({ ...next }, env), observed, codeErrors, {
            startAfterMs: NEXT_ORDER_AFTER_MS,
            why: `an hour later the same customer checks out again: order ${next.id}, $${(next.totalCents / 100).toFixed(2)}`,
          }),
        ].map(shifted),
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000 },
        horizonMs: NEXT_DAY_RERUN_MS + HOUR_MS + (late ? late.ms : 0),
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [{ kind: 'lose-response', call: 'payments.charge', nth: 1 }],
    story: 'The first charge goes through, but its response is lost: checkout times out after 5 s and retries. The next day a rerun charges the order again.',
  },
  // A crash right after the charge went through is taken over by the job queue's retry within
  // the provider's day, under the key the first attempt used. Four lost responses that end
  // checkout with the key still running would be too, but a run that then also loses the retry's
  // answers reaches the next day's rerun after the provider forgot the key: a gap only a
  // reconciliation with the provider closes (the brief says so), so at most two are lost.
  faultMenu: [
    { kind: 'lose-response', call: 'payments.charge', nth: 1 },
    { kind: 'lose-response', call: 'payments.charge', nth: 2 },
    { kind: 'lose-request', call: 'payments.charge', nth: 1 },
    { kind: 'slow-response', call: 'payments.charge', nth: 2, ms: 8_000 },
    { kind: 'crash', process: 'checkout', after: 'db', nth: 1 },
    { kind: 'crash', process: 'checkout', before: 'payments.charge', nth: 1 },
    { kind: 'crash', process: 'checkout', after: 'payments.charge', nth: 1 },
  ],
  maxFaults: 3,
  invariants: [noDoubleCharge([TIMEOUT_ORDER.id, NEXT_ORDER.id]), timeoutOrderCharged, everyoneSawTheCharge],
  tables: ['operations'],
  // The job queue's retry of checkout (even seeds), checkout-2, gets a lane after checkout's where a run starts it.
  actors: ['checkout', 'next-order', 'rerun', 'postgres', 'payments'],
  crashable: ['checkout', 'rerun'],
  lossy: 'payments.charge',
  prediction: {
    prompt: "The first charge's response is lost and checkout retries; the next day a rerun charges again. How many times will order 2077 be charged?",
    ...chargesFor(2077),
  },
  hints: {
    nudge: 'Run the demonstration and follow both days: the lost response on day one, the retry, and the rerun on day two. In the provider\'s ledger, which requests carried which key, and did the provider still remember it on day two?',
    targeted: [
      {
        id: 'no-double-charge/lose-response',
        invariant: 'no-double-charge',
        fault: { kind: 'lose-response' },
        text: 'The response was lost and the retry charged again. The retry must carry the same key derived from the order, and on day two — after the provider may have forgotten it — your own operations table has to answer: claim, complete with the charge, and return the stored one.',
      },
      {
        id: 'no-double-charge',
        invariant: 'no-double-charge',
        text: 'The order was charged twice. A key the provider forgets after 24 hours cannot stop day two\'s rerun, and a key with the day in it is new on day two. Keep the charge in your operations table under a key derived from the order, and pass the same key to the provider.',
      },
      {
        id: 'order-charged',
        invariant: 'order-charged',
        text: 'The order was never charged. Look for the key marked done before the charge was made: a crash or a timeout between the two leaves a done key and no charge. Complete it with the charge\'s result.',
      },
      {
        id: 'same-charge-everywhere',
        invariant: 'same-charge-everywhere',
        text: 'Checkout and the rerun disagree about the charge. A timeout swallowed as "no charge", or a rerun that charges anew, reports something that did not happen: return the charge stored under the key.',
      },
    ],
  },
  questions: [
    {
      id: 'ambiguous-timeout-after-retention',
      prompt: 'Checkout charged order 2077 with the key opKey(\'charge\', { orderId }). The next day — after the 24 hours the provider promises to keep keys — a rerun calls the solution\'s chargeOrder (which claims and completes the key in our operations table) with the same key. What happens?',
      choices: [
        {
          id: 'provider-remembers',
          text: 'The provider returns the original charge: a key is remembered for as long as the account exists',
        },
        {
          id: 'table-catches',
          text: 'The provider may charge again; our operations table, which still says done, is what stops it',
        },
        { id: 'refused', text: 'The provider refuses the request with an error, because that key was already used yesterday' },
        { id: 'dropped', text: 'Nothing at all: the provider silently drops requests that carry a key more than a day old' },
      ],
      correct: 'table-catches',
      explanation: 'A provider remembers keys only for its retention window (Stripe promises at least 24 hours); after that the same key may be a new request, and the card charged again. A reused key is only refused when its parameters differ — same key, different amount — which is how the provider catches two operations sharing a key by mistake. Our operations table lasts as long as we keep it: claim the key, find it done, and return the stored charge without calling the provider.',
      see: {
        scenario: 'ambiguous-timeout-charge',
        variant: 'solution',
        seed: 1,
        faults: [{ kind: 'lose-response', call: 'payments.charge', nth: 1 }],
        expect: 'held',
        invariant: 'no-double-charge',
      },
    },
    {
      id: 'ambiguous-timeout-key-reuse',
      prompt: 'A bug builds the charge key from the customer alone, so two different orders of the same customer — $129.00 and $19.90 — reach the payment provider with the same key within the hour. What does the provider do with the second one?',
      choices: [
        {
          id: 'refuses',
          text: 'It refuses it with an idempotency error: the same key came with different parameters',
        },
        {
          id: 'returns-first',
          text: 'It returns the first charge of $129.00 and charges nothing for the second order at all',
        },
        { id: 'charges', text: 'It charges $19.90: a different amount makes it a different request, whatever the key' },
      ],
      correct: 'refuses',
      explanation: 'A provider that keeps keys also keeps what each key was used for. The same key with the same parameters is a retry and gets the original result; the same key with different parameters cannot be a retry, so it is refused rather than guessed at. That refusal is a gift: it exposes a key that does not identify its operation. Derive the key from what makes the operation unique — here the order, not the customer.',
    },
  ],
});
