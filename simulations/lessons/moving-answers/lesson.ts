/** The lesson "The answer that moved": Answers that move. Its code is ./starter.ts and ./solution.ts. */
import { CHECK_MESSAGES, CRM_SETUP_SQL, checkWorker, crashAt, oneConsistentAnswer, orderChecked } from '../kit/metered-worlds';
import { held, plural } from '../kit/predictions';
import { handlerOf, messagesSettled, startsLate, type CodeError } from '../kit/scenario';
import { defineLesson } from '../kit/define';
import { CHECK_HOLDS_HINT, checkHoldsWhenActing } from '../kit/check-holds';

export default defineLesson({
  id: 'moving-answers',
  title: 'The answer that moved',
  summary: 'A lookup is replayed after a crash and the data has moved: the CRM hears two different answers. Storing the first answer under the operation\'s key and serving the replay from it keeps one.',
  concept: 'Answers that move',
  entry: 'checkCustomer',
  brief: [
    'A lookup is safe to replay — it changes nothing — but its answer can change. Deliverability checks, DNS, live prices and the current time can all say something different the second time.',
    'Here a worker checks whether the customer\'s address is deliverable and hands the answer on to the CRM, then crashes before acking. The redelivery comes 30 s later; the data has moved, and the starter\'s second lookup tells the CRM something else.',
    'If downstream must see one answer, store the first result under the operation\'s key (complete(db, key, answer)) and serve any replay from the store instead of asking again. Give the claim a lease shorter than the queue\'s patience — claim(env.db, key, 60): the message comes back every 30 s and at most 10 times, and while a crashed worker\'s lease runs, every redelivery can only be told to come back later.',
    'Why not a Map in the module? Each worker is its own process with its own memory, and a crash wipes it: a cache in a variable is gone after the restart and was never seen by the other worker. Only the database outlives both.',
    'On every seed but 1, 5, 9, … (the demonstration\'s) Explore brings the workers up at 09:00:58, two seconds before the minute turns and the data moves (on seeds 3, 11, 19, … at 09:59:58, before the hour turns): a redelivery 30 s later falls in the next minute, or hour, so a key must not change when the clock does, and two deliveries handled at once can hear two answers, so the second must not look up before the first has stored its answer.',
  ],
  explanations: {
    starter: 'Looks the address up on every delivery. Safe for the world, but the replay\'s answer is not the first one, and the CRM now holds both.',
    solution: 'The first answer is stored with complete() under the check\'s key; a replay finds the key done and returns the stored answer, so the CRM hears the same thing however often the message comes.',
  },
  build(mod, variation) {
    const handler = handlerOf(mod, 'checkCustomer');
    // Every seed but the demonstration's class: the workers come up at 09:00:58 (on seeds 3, 11,
    // 19, … at 09:59:58), so a redelivery 30 s later is in the next minute (or hour), and the
    // lookup's data moves at the turn, while a slow first lookup is still out.
    const late = variation?.seed !== undefined && variation.seed % 4 !== 1;
    const [lateMs, lateAt] = variation?.seed !== undefined && variation.seed % 8 === 3 ? [3_598_000, '09:59:58'] : [58_000, '09:00:58'];
    const worker = (id: string) => (late ? startsLate(checkWorker(id, handler, codeErrors), lateMs, `${id} comes up at ${lateAt}`) : checkWorker(id, handler, codeErrors));
    const codeErrors: CodeError[] = [];
    return {
      spec: {
        processes: [worker('worker-1'), worker('worker-2')],
        messages: CHECK_MESSAGES,
        visibilityTimeoutMs: 30_000,
        maxReceives: 10,
        providers: { timeoutMs: 5_000, metered: { credits: 100, answerPeriodMs: 20_000 } },
        setupSql: CRM_SETUP_SQL,
        // Two hours: workers that come up at 09:59:58 still have every redelivery inside it.
        horizonMs: 2 * 3_600_000,
      },
      observed: {},
      codeErrors,
    };
  },
  demo: {
    seed: 1,
    faults: [crashAt('worker-1', 'before', 'queue.ack')],
    story: 'worker-1 hands "deliverable" to the CRM and crashes before its ack; 30 s later the lookup says something else.',
  },
  faultMenu: [
    crashAt('worker-1', 'before', 'queue.ack'),
    crashAt('worker-2', 'before', 'queue.ack'),
    crashAt('worker-1', 'after', 'lookup.check'),
    crashAt('worker-1', 'after', 'db', 2),
    { kind: 'duplicate-delivery', message: 'm1' },
    { kind: 'lose-response', call: 'lookup.check', nth: 1 },
    // A lookup that takes 4 s (inside its 5 s timeout), and a second delivery 2 s into the first:
    // two handlings at once, while the data behind the lookup may move.
    { kind: 'slow-response', call: 'lookup.check', nth: 1, ms: 4_000 },
    { kind: 'duplicate-delivery', message: 'm1', afterMs: 2_000 },
    // The same slow lookup with the second delivery 3.5 s into it: a lease sized to the lookup's
    // usual speed, not to its 5 s timeout, has run out while the first worker still waits.
    { kind: 'duplicate-delivery', message: 'm1', afterMs: 3_500 },
  ],
  maxFaults: 3,
  invariants: [oneConsistentAnswer, orderChecked, messagesSettled, checkHoldsWhenActing],
  tables: ['operations', 'crm_updates'],
  actors: ['queue', 'worker-1', 'worker-2', 'postgres', 'lookup'],
  crashable: ['worker-1', 'worker-2'],
  lossy: 'lookup.check',
  prediction: {
    prompt: 'worker-1 crashes before its ack and the message comes back 30 s later, when the lookup would answer differently. How many different answers will the CRM hear?',
    options: [
      { id: 'one', label: 'One answer' },
      { id: 'two', label: 'Two different answers' },
    ],
    measure: (run) => (held(run, 'one-consistent-answer') === false ? 'two' : 'one'),
    describe: (run) => {
      const lookups = run.ledger.credits.filter((c) => c.kind === 'lookup');
      const answers = [...new Set(lookups.map((c) => String(c.output)))];
      return `${plural(lookups.length, 'lookup was', 'lookups were')} billed, answering ${answers.map((a) => `"${a}"`).join(' then ')}; ${
        held(run, 'one-consistent-answer') === false ? 'the CRM heard both' : 'the CRM heard one answer'
      }`;
    },
  },
  hints: {
    nudge: 'Run the demonstration and read the CRM\'s lane in the timeline: what did it hear the first time, and what the second? Then look at the lookup provider\'s answers in the ledger. Which of the two answers should downstream have kept?',
    targeted: [
      {
        id: 'one-consistent-answer/duplicate-delivery',
        invariant: 'one-consistent-answer',
        fault: { kind: 'duplicate-delivery' },
        text: 'Two workers handled m1 at once, both asked the lookup and each told the CRM its own answer. The answer must be claimed and stored under the operation\'s key before anyone hands it on; a worker that finds the key claimed must not ask again. Replay it and watch who writes the answer first.',
      },
      {
        id: 'one-consistent-answer',
        invariant: 'one-consistent-answer',
        text: 'The CRM heard two different answers. A repeat must not ask again: store the first answer under the operation\'s key, in the database (a variable dies with the worker and is not shared), and serve every repeat from the store. A key with a time in it is new on the redelivery and asks again.',
      },
      {
        id: 'order-checked',
        invariant: 'order-checked',
        text: 'The answer never reached the CRM. Look for the key marked done before the answer was delivered, or a repeat that skipped the lookup and said nothing: complete the key with the answer itself, then hand that stored answer on, on every delivery.',
      },
      {
        id: 'messages-settled',
        invariant: 'messages-settled',
        text: 'A message was never acknowledged: the worker kept answering \'retry-later\' (or threw) on every delivery until the queue gave up. Look at what it returns when the key is already done — that delivery has nothing left to do and must be acknowledged — and at a claim that nobody can ever take over.',
      },
      CHECK_HOLDS_HINT,
    ],
  },
  questions: [
    {
      id: 'moving-answers-store-first',
      prompt: 'A worker looks up whether the customer\'s address is deliverable, hands the answer to the CRM and crashes before acking. The redelivered message looks it up again 30 s later, and the answer has changed. The CRM must hear one answer. What should the handler do?',
      choices: [
        { id: 'look-again', text: 'Look it up again on every delivery: the newest answer is the most accurate one' },
        {
          id: 'store-first',
          text: 'Store the first answer under the operation\'s key; a replay reads it from there',
        },
        {
          id: 'lookup-key',
          text: 'Send an idempotency key with the lookup, so the API repeats its first answer',
        },
        { id: 'skip', text: 'On a redelivery skip the lookup and tell the CRM nothing, since it already heard' },
      ],
      correct: 'store-first',
      explanation: 'A lookup is safe to repeat — it changes nothing — but its answer can move, and a downstream that heard "deliverable" and then "risky" now holds two stories. Lookups take no idempotency key; the API simply answers what is true now. Claim the check\'s key, complete it with the answer, and a replay returns that stored answer without calling again (which also saves the credit). Saying nothing on a redelivery loses the answer whenever the first attempt never reached the CRM.',
      see: {
        scenario: 'moving-answers',
        variant: 'starter',
        seed: 1,
        faults: [{ kind: 'crash', process: 'worker-1', before: 'queue.ack' }],
        expect: 'violated',
        invariant: 'one-consistent-answer',
      },
    },
  ],
});
