/**
 * "Predict, then run": per lesson, one question the learner answers before the first run of the
 * demonstration, and how to read the real answer from that run. Answers are never stored: `measure`
 * computes the outcome from the run's ledger and invariants, so the reveal shows what really happened
 * (the lab reveals it on a run of the starter, the code each question is about). Pure functions
 * over plain data; no engine code.
 */
import type { Ledger } from '../../providers/registry';
import type { PredictionPrompt } from '../catalog';

/** What `measure` reads: the parts of a finished run the lab reports. */
export interface RunFacts {
  verdict: 'held' | 'violated';
  invariants: { id: string; held: boolean; detail: string }[];
  ledger: Ledger;
}

/** One prediction question: its prompt and options (data the page shows), and how a run answers it. */
export interface Prediction extends PredictionPrompt {
  /** The outcome of a real run, as an option id. */
  measure(run: RunFacts): string;
  /** The run's actual figure in words, for the reveal ("2 receipts"). */
  describe(run: RunFacts): string;
}

export const COUNT_OPTIONS = [
  { id: '0', label: '0' },
  { id: '1', label: '1' },
  { id: '2', label: '2' },
  { id: '3+', label: '3 or more' },
];

export const bucket = (n: number) => (n >= 3 ? '3+' : String(n));
export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function receiptsFor(orderId: number, one = 'receipt', many = 'receipts'): Pick<Prediction, 'measure' | 'describe' | 'options'> {
  const count = (run: RunFacts) => run.ledger.emails.filter((e) => e.orderId === orderId).length;
  return {
    options: COUNT_OPTIONS,
    measure: (run) => bucket(count(run)),
    describe: (run) => `order ${orderId} got ${plural(count(run), one, many)}`,
  };
}

export function chargesFor(orderId: number): Pick<Prediction, 'measure' | 'describe' | 'options'> {
  const count = (run: RunFacts) => run.ledger.charges.filter((c) => c.orderId === orderId).length;
  return {
    options: COUNT_OPTIONS,
    measure: (run) => bucket(count(run)),
    describe: (run) => `order ${orderId} was charged ${count(run) === 1 ? 'once' : `${count(run)} times`}`,
  };
}

/** Orders published more than once, from the ledger's "order-placed" messages. */
export function republished(run: RunFacts): number {
  const seen = new Map<string, number>();
  for (const p of run.ledger.published) {
    if (p.topic !== 'order-placed') continue;
    const id = String((p.body as { orderId?: unknown } | null)?.orderId);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  return [...seen.values()].filter((n) => n > 1).length;
}

export const transformCredits = (run: RunFacts) => run.ledger.credits.filter((c) => c.kind === 'transform').length;

export const held = (run: RunFacts, id: string) => run.invariants.find((i) => i.id === id)?.held;
