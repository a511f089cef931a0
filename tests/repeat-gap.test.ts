/**
 * The one repeat no key prevents — a crash between a provider call and the statement that records
 * it done, taken over after the provider forgot the key — is shown by the charge and receipt
 * invariants as beyond keys, which Explore does not count, and nothing wider is: a job that marks
 * its work done at its end, or a repeat under another key, still breaks them. Runs human-rerun on exact schedules, on PGlite.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { explore, runScenario, summarize } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { crashedBeforeComplete } from '../simulations/lessons/kit/one-shot';
import type { TraceEvent } from '../simulations/engine/types';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();
const scenario = lessonById('human-rerun');
const CRASH_BEFORE_FIRST_RECEIPT = [{ kind: 'crash' as const, process: 'nightly-job', before: 'email.send' as const, nth: 1 }];

async function run(file: string, seed: number, faults: unknown[], choices?: number[]) {
  const variant = `tests/judge/human-rerun/${file}`;
  const code = readFileSync(new URL(`./judge/human-rerun/${file}`, import.meta.url), 'utf8');
  const r = await runScenario(sim.db, { scenario, code, variant, seed, faults: faults as never, ...(choices ? { choices } : {}) });
  const inv = (id: string) => r.invariants.find((i) => i.id === id)!;
  return { r, inv };
}

test('a job billing its orders at once: the crash before the first receipt lands between another charge and its complete, and the repeat is excused', async () => {
  const { r, inv } = await run('right-orders-in-parallel.ts', 6, CRASH_BEFORE_FIRST_RECEIPT, [0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
  expect(r.ledger.charges.filter((c) => c.orderId === 3003).length, replayHint(r)).toBe(2);
  // The run shows the repeat, named as the gap; Explore does not count it against the code.
  expect(inv('no-double-charge').held, replayHint(r)).toBe(false);
  expect(inv('no-double-charge').beyondKeys, replayHint(r)).toBe(true);
  expect(inv('no-double-charge').detail).toMatch(/order 3003 was charged 2 times: .*a gap no key closes/);
  expect(r.verdict).toBe('violated');
  expect(summarize(r), replayHint(r)).toMatchObject({ verdict: 'held', broken: [] });
});

test('Explore holds the job that bills its orders at once, and still breaks the starter', async () => {
  const code = readFileSync(new URL('./judge/human-rerun/right-orders-in-parallel.ts', import.meta.url), 'utf8');
  const e = await explore(sim.db, { scenario, code, variant: 'right-orders-in-parallel', runs: 200 });
  expect(e.violations, e.counterexample ? `seed ${e.counterexample.seed}: ${e.counterexample.detail}` : '').toBe(0);
  const starter = await explore(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', runs: 20 });
  expect(starter.violations).toBeGreaterThan(10);
  expect(starter.byInvariant['no-double-charge']).toBeGreaterThan(10);
});

test('a job that marks everything done at its end is not excused: it made other calls after the charge was answered', async () => {
  // Crashed after its 3rd statement (the second order's claim): the first order's receipt went out after its charge, with that charge still not done.
  const { r, inv } = await run('complete-at-job-end.ts', 1, [{ kind: 'crash', process: 'nightly-job', after: 'db', nth: 3 }]);
  expect(inv('no-double-charge').held, replayHint(r)).toBe(false);
  expect(inv('no-double-charge').beyondKeys, replayHint(r)).toBeUndefined();
  expect(inv('no-double-charge').detail).toMatch(/order 3001 was charged 2 times/);
  expect(summarize(r).broken).toContain('no-double-charge');
});

test('a receipt sent beside its charge breaks receipt-after-charge, with no fault at all', async () => {
  const { r, inv } = await run('charge-and-receipt-parallel.ts', 1, []);
  expect(inv('receipt-after-charge').held, replayHint(r)).toBe(false);
  expect(inv('receipt-after-charge').detail).toMatch(/before any charge for it was confirmed/);
});

test('the lesson\'s own solution sends every receipt after its charge, whatever the demonstration', async () => {
  const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 });
  expect(r.invariants.find((i) => i.id === 'receipt-after-charge')?.held, replayHint(r)).toBe(true);
});

// A hand-made trace: worker claims key k, charges under it, and crashes (having asked for the
// statements `unrun`, never run); `later` charges under k.
function trace(between: Partial<TraceEvent>[], unrun: unknown[] = []): TraceEvent[] {
  const events: Partial<TraceEvent>[] = [
    { actor: 'worker', type: 'db', data: { sql: 'INSERT …', params: ['k'] } },
    { actor: 'later', type: 'db', data: { sql: 'INSERT …', params: ['k'] } },
    { actor: 'worker', type: 'call', call: 'payments.charge', data: { request: { orderId: 1 }, options: { idempotencyKey: 'k' } } },
    ...between,
    { actor: 'worker', type: 'crash', data: { before: null, unrun } },
    { actor: 'later', type: 'call', call: 'payments.charge', data: { request: { orderId: 1 }, options: { idempotencyKey: 'k' } } },
  ];
  return events.map((e, i) => ({ t: 0, step: i, text: '', ...e, i }) as TraceEvent);
}
const excused = (t: TraceEvent[], secondKey = 'k') => crashedBeforeComplete(t, { step: 2, key: 'k', by: 'worker' }, { step: t.length - 1, key: secondKey, by: 'later' });
const answered = { actor: 'payments', type: 'reply' as const, target: 'worker', data: { answers: 2 } };
const complete = { sql: 'UPDATE operations SET state = \'done\' …', params: ['k', '{}'] };

test('crashedBeforeComplete: unanswered, or answered with its complete asked for and unrun, is the gap; a complete that ran, other work, or another key is not', () => {
  expect(excused(trace([]))).not.toBeNull();
  expect(excused(trace([answered], [complete]))).not.toBeNull();
  // Answered, and the process crashed with nothing asked for: it had gone on to something else.
  expect(excused(trace([answered]))).toBeNull();
  expect(excused(trace([answered, { actor: 'worker', type: 'db', data: { sql: 'UPDATE …', params: ['k'] } }], [complete]))).toBeNull();
  expect(excused(trace([answered, { actor: 'worker', type: 'call', call: 'email.send', data: { options: { idempotencyKey: 'r' } } }], [complete]))).toBeNull();
  // A retry under the same key, still unanswered at the crash, is the gap too.
  expect(excused(trace([{ actor: 'worker', type: 'timeout', data: { answers: 2 } }, { actor: 'worker', type: 'call', call: 'payments.charge', data: { options: { idempotencyKey: 'k' } } }]))).not.toBeNull();
  expect(excused(trace([]), 'other')).toBeNull();
});
