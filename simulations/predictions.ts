/**
 * "Predict, then run": per scenario, one question the learner answers before the first run of the
 * demonstration, and how to read the real answer from that run. Answers are never stored: `measure`
 * computes the outcome from the run's ledger and invariants, so the reveal shows what really happened
 * (the lab reveals it on a run of the starter, the code each question is about). Pure functions
 * over plain data; no engine code.
 */
import type { Ledger } from './providers/index';

/** What `measure` reads: the parts of a finished run the lab reports. */
export interface RunFacts {
  verdict: 'held' | 'violated';
  invariants: { id: string; held: boolean; detail: string }[];
  ledger: Ledger;
}

/** One prediction question. */
export interface Prediction {
  scenario: string;
  /** Asked before the run. */
  prompt: string;
  /** The outcomes a learner can pick from; `measure` returns one of their ids. */
  options: { id: string; label: string }[];
  /** The outcome of a real run, as an option id. */
  measure(run: RunFacts): string;
  /** The run's actual figure in words, for the reveal ("2 receipts"). */
  describe(run: RunFacts): string;
}

const COUNT_OPTIONS = [
  { id: '0', label: '0' },
  { id: '1', label: '1' },
  { id: '2', label: '2' },
  { id: '3+', label: '3 or more' },
];

const bucket = (n: number) => (n >= 3 ? '3+' : String(n));
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function receiptsFor(orderId: number, one = 'receipt', many = 'receipts'): Pick<Prediction, 'measure' | 'describe' | 'options'> {
  const count = (run: RunFacts) => run.ledger.emails.filter((e) => e.orderId === orderId).length;
  return {
    options: COUNT_OPTIONS,
    measure: (run) => bucket(count(run)),
    describe: (run) => `order ${orderId} got ${plural(count(run), one, many)}`,
  };
}

function chargesFor(orderId: number): Pick<Prediction, 'measure' | 'describe' | 'options'> {
  const count = (run: RunFacts) => run.ledger.charges.filter((c) => c.orderId === orderId).length;
  return {
    options: COUNT_OPTIONS,
    measure: (run) => bucket(count(run)),
    describe: (run) => `order ${orderId} was charged ${count(run) === 1 ? 'once' : `${count(run)} times`}`,
  };
}

/** Orders published more than once, from the ledger's "order-placed" messages. */
function republished(run: RunFacts): number {
  const seen = new Map<string, number>();
  for (const p of run.ledger.published) {
    if (p.topic !== 'order-placed') continue;
    const id = String((p.body as { orderId?: unknown } | null)?.orderId);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  return [...seen.values()].filter((n) => n > 1).length;
}

const transformCredits = (run: RunFacts) => run.ledger.credits.filter((c) => c.kind === 'transform').length;

const held = (run: RunFacts, id: string) => run.invariants.find((i) => i.id === id)?.held;

/** One prediction per scenario that has one, in lesson order. */
export const PREDICTIONS: readonly Prediction[] = [
  { scenario: 'receipt-redelivery', prompt: 'worker-1 crashes after sending, before it acknowledges. How many receipts will order 1042 get?', ...receiptsFor(1042) },
  {
    scenario: 'replay-safety',
    prompt: 'The same "order shipped" event is handled twice, two minutes apart. How many times will the card for order 1042 be charged?',
    ...chargesFor(1042),
  },
  {
    scenario: 'moving-answers',
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
  {
    scenario: 'batch-credits',
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
  { scenario: 'concurrent-redelivery', prompt: 'The message reaches both workers at once. How many receipts will order 1042 get?', ...receiptsFor(1042) },
  { scenario: 'lease-expiry', prompt: 'worker-1 dies right after claiming the key. How many receipts will order 1042 get?', ...receiptsFor(1042) },
  { scenario: 'crash-after-send', prompt: 'worker-1 crashes after the e-mail went out, before complete(). How many receipts will order 1042 get?', ...receiptsFor(1042) },
  { scenario: 'random-key-on-retry', prompt: "The first charge's response is lost and checkout retries. How many times will order 1042 be charged?", ...chargesFor(1042) },
  {
    scenario: 'ambiguous-timeout-charge',
    prompt: "The first charge's response is lost and checkout retries; the next day a rerun charges again. How many times will order 2077 be charged?",
    ...chargesFor(2077),
  },
  {
    scenario: 'business-date-reminder',
    prompt: 'The scheduler fires at 09:00, again at 23:59 after a late deploy, and at 09:00 the next day. How many reminders will order 1042 get in all, over the two days?',
    ...receiptsFor(1042, 'reminder', 'reminders'),
  },
  { scenario: 'human-rerun', prompt: 'An operator reruns the nightly billing job by hand the next day. How many times will order 3001 be charged?', ...chargesFor(3001) },
  { scenario: 'webhook-dedupe', prompt: 'evt_1 is delivered to both handlers at once. How many "payment received" e-mails will order 1042 get?', ...receiptsFor(1042, '"payment received" e-mail', '"payment received" e-mails') },
  {
    scenario: 'dual-write',
    prompt:
      'The shop crashes right after its INSERT INTO orders; it restarts and the checkout is retried. Will every saved order reach the consumers as an "order-placed" message?',
    options: [
      { id: 'announced', label: 'Yes: nothing saved goes unannounced' },
      { id: 'lost', label: 'No: a saved order is never announced' },
    ],
    measure: (run) => (held(run, 'nothing-lost') === false ? 'lost' : 'announced'),
    describe: (run) => {
      const n = run.ledger.published.filter((p) => p.topic === 'order-placed').length;
      return held(run, 'nothing-lost') === false
        ? `a saved order was never announced (${plural(n, 'message', 'messages')} published)`
        : `every saved order was announced (${plural(n, 'message', 'messages')} published)`;
    },
  },
  { scenario: 'relay-crash', prompt: 'The relay crashes after publishing, before COMMIT, and publishes again. How many receipts will order 1 get?', ...receiptsFor(1) },
  {
    scenario: 'relay-concurrency',
    prompt: 'Two healthy relays poll an outbox of 4 orders. How many orders will be published more than once?',
    options: COUNT_OPTIONS,
    measure: (run) => bucket(republished(run)),
    describe: (run) => {
      const n = republished(run);
      const total = run.ledger.published.filter((p) => p.topic === 'order-placed').length;
      return `${plural(n, 'order was', 'orders were')} published more than once (${plural(total, 'message', 'messages')} in all)`;
    },
  },
];

/** The prediction of scenario `scenarioId`, if it has one. */
export function predictionFor(scenarioId: string): Prediction | undefined {
  return PREDICTIONS.find((p) => p.scenario === scenarioId);
}
