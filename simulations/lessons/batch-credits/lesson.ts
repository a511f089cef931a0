/** The lesson "Resend only what failed": Credits and batches. Its code is ./starter.ts and ./solution.ts. */
import { accountOn, batchOn, everyItemTransformed, noItemBilledTwice } from '../kit/metered-worlds';
import { plural, transformCredits } from '../kit/predictions';
import { exportedFunction } from '../../learner/compile';
import { type CodeError } from '../kit/scenario';
import type { Env, TransformRequest } from '../../engine/types';
import { oneShot } from '../kit/one-shot';
import { defineLesson } from '../kit/define';

export default defineLesson({
  id: 'batch-credits',
  title: 'Resend only what failed',
  summary: 'A batch of transformations comes back with 429s, 402s and items never answered. Resending the whole batch re-bills what already succeeded; resending only those indices bills each item once.',
  concept: 'Credits and batches',
  entry: 'signAll',
  brief: [
    'A transformation API (HMAC, HTML to PDF) creates nothing, so a replay is safe — but every item that succeeds bills a credit, and a job that reruns from the start pays twice.',
    'Here a job signs ten payloads in one batch. The account has 5 credits until its allowance renews at 60 s, the rate window takes 6 items per 10 s, and a batch answers at most 8 items before its deadline. Results come back in the order sent: some items fail with 429 (rate window) or 402 (credits), the last ones get no answer at all. The starter resends the whole batch.',
    'Explore also has the rate limiter refuse an item in the middle of a batch with 429, as a burst from elsewhere on the account would: a result belongs to its item\'s index, wherever the failures fall. On seeds 2, 6, 10, … the account holds credits for every item from the start, so only the rate window refuses: a 429 needs its wait as much as a 402 does.',
    'Each payload is signed with the account\'s secret, whsec_demo. On seeds 3, 7, 11, … the account is rotating it: the last payload is the third one\'s text again, to be signed under the new secret, whsec_rotated. The same text under another secret is another item, with a signature of its own. On seeds 4, 12, 20, … the last payload is the fourth one again, text and secret alike, as one webhook body signed for two subscribers: two equal payloads are still two items, each with its own index and its own result.',
    'Keep the results you got, and resend only the indices that failed with 429 or 402 or never got a response — after the wait the answer asks for. The whole batch call can time out too: catch that, wait, and send the items still pending again. That is free when the request was lost on the way; when the answer was lost, the provider already billed the batch, and resending bills it again. With no key to send, no design avoids that: it is the price of a metered API without idempotency keys, so the explorer loses only requests, and you can lose an answer by hand to see it.',
  ],
  explanations: {
    starter: 'Resends all ten items until every one succeeds in the same response: each round re-bills the items that had already succeeded, and the credits run out.',
    solution: 'Results come back in the order sent, so result k belongs to the k-th index sent. Successes are kept; only indices that failed with 429 or 402, or got no result, go into the next request — each item is billed once.',
  },
  build(mod, v) {
    const account = accountOn(v?.seed);
    const topUp = account.topUps[0];
    const signAll = exportedFunction<(items: TransformRequest[], env: Env) => Promise<unknown>>(mod, 'signAll');
    const batch = batchOn(v?.seed);
    const observed: Record<string, unknown> = { batch };
    const codeErrors: CodeError[] = [];
    return {
      spec: {
        processes: [
          oneShot('batch-job', (env) => signAll(batch.map((b) => ({ ...b })), env), observed, codeErrors, {
            why: `signing ${batch.length} payloads; the account holds ${account.credits} credits${topUp ? `, ${topUp.credits} more arrive at ${topUp.atMs / 1000} s` : ''}`,
          }),
        ],
        messages: [],
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, metered: account },
        horizonMs: 3_600_000,
      },
      observed,
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [],
    story: 'No fault needed: the first batch gets 5 items through, one 402, two 429s, and no answer for the last two.',
  },
  // Only faults after which the job knows nothing was billed: a lost request, a slow answer that
  // still arrives, an item refused (the systematic pass moves it over the batch's items). A batch
  // applied and then lost entirely would be re-billed by any design.
  faultMenu: [
    { kind: 'refuse-item', call: 'transform.batch', nth: 1, item: 0 },
    { kind: 'lose-request', call: 'transform.batch', nth: 1 },
    { kind: 'lose-request', call: 'transform.batch', nth: 2 },
    { kind: 'lose-request', call: 'transform.batch', nth: 3 },
    { kind: 'slow-response', call: 'transform.batch', nth: 1, ms: 3_000 },
    { kind: 'slow-response', call: 'transform.batch', nth: 2, ms: 4_500 },
  ],
  maxFaults: 3,
  invariants: [noItemBilledTwice, everyItemTransformed],
  tables: [],
  actors: ['batch-job', 'transform'],
  crashable: ['batch-job'],
  lossy: 'transform.batch',
  prediction: {
    prompt: 'The job signs 10 payloads; each successful item bills one credit. How many credits will the job spend in all?',
    options: [
      { id: '<10', label: 'Fewer than 10' },
      { id: '10', label: 'Exactly 10' },
      { id: '11-14', label: '11 to 14' },
      { id: '15+', label: '15 or more' },
    ],
    measure: (run) => {
      const n = transformCredits(run);
      return n < 10 ? '<10' : n === 10 ? '10' : n < 15 ? '11-14' : '15+';
    },
    describe: (run) => `${plural(transformCredits(run), 'credit', 'credits')} spent on 10 items`,
  },
  hints: {
    nudge: 'Run the demonstration and read the first batch\'s answer in the event log: which indices succeeded, which got 429 or 402, which got no answer? Then count the credits in the ledger. Which items did the next request really need to send?',
    targeted: [
      {
        id: 'no-item-billed-twice',
        invariant: 'no-item-billed-twice',
        text: 'An item was billed twice: a retry sent an item that had already succeeded. Keep each result by its index as it comes back, and resend only the indices that failed or got no answer — not the whole batch, after a 402, a 429 or a timeout alike.',
      },
      {
        id: 'every-item-transformed/lose-request',
        invariant: 'every-item-transformed',
        fault: { kind: 'lose-request' },
        text: 'A batch request was lost on the way, and some items never got a result. A timed-out batch call has to be caught: wait, then send the items still pending again. Replay it and follow the items of the lost request.',
      },
      {
        id: 'every-item-transformed',
        invariant: 'every-item-transformed',
        text: 'Not every item got its result in its own place. Check three things in the replay: a 402 or 429 retried before the wait it asked for (the credits renew at 60 s, the rate window every 10 s), an item with no answer taken as done, and results placed by arrival instead of by index.',
      },
    ],
  },
  questions: [
    {
      id: 'batch-credits-resend-failed',
      prompt: 'A batch of 10 transformations comes back with 5 successes, one 402 (out of credits), two 429s (rate window) and no answer at all for the last two. Each success bills a credit. What should the next request send?',
      choices: [
        { id: 'whole-batch', text: 'The whole batch again, so that all ten results come back together in one response' },
        {
          id: 'failed-only',
          text: 'Only the 5 items that failed or got no answer, after the wait that the errors ask for',
        },
        { id: '429-only', text: 'Only the two 429s, after the rate window: a 402 and an unanswered item never succeed' },
        { id: 'nothing', text: 'Nothing: transformations are safe to replay, so there is no need to retry any item' },
      ],
      correct: 'failed-only',
      explanation: 'Results come back in the order sent, so each index knows whether it succeeded. Resending the whole batch re-bills the five that already worked — correct, but paid twice. A 402 succeeds once credits are back, and an unanswered item may or may not have been processed (resending it is safe, and at worst bills it once more), so both belong in the retry, as do the 429s after the rate window. Safe to replay means a retry cannot break anything, not that you may skip it.',
      see: {
        scenario: 'batch-credits',
        variant: 'starter',
        seed: 1,
        faults: [],
        step: 5,
        expect: 'violated',
        invariant: 'no-item-billed-twice',
      },
    },
  ],
});
