/**
 * A simulated process's memory is its own (simulations/compile.ts): a module-level variable in the
 * learner's code lives in one process incarnation — worker-1 and worker-2 are two machines, a crash
 * wipes it, and every run starts without it. A red-team review found an in-memory "already sent?"
 * set shared by both workers, kept across crashes and across runs: the first run said Held (and
 * marked the lesson passed), the second Violated.
 */
import { describe, expect, test } from 'vitest';
import { enterProcess, exportedFunction, loadLearnerModule } from '../simulations/learner/compile';
import { explore, runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const COUNTER = `let calls = 0;\nexport function next() { return ++calls; }`;

describe('each process incarnation calls its own evaluation of the module', () => {
  test('memory lasts within an incarnation, not across processes, restarts or loads', () => {
    const mod = loadLearnerModule(COUNTER);
    const next = exportedFunction<() => number>(mod, 'next');
    const worker1 = {};
    const worker2 = {};
    const worker1Restarted = {};
    try {
      enterProcess(worker1);
      expect([next(), next()]).toEqual([1, 2]);
      enterProcess(worker2);
      expect(next()).toBe(1);
      enterProcess(worker1);
      expect(next()).toBe(3);
      enterProcess(worker1Restarted);
      expect(next()).toBe(1);
      // The next run loads the module again: nothing carries over, even for the same process.
      const again = exportedFunction<() => number>(loadLearnerModule(COUNTER), 'next');
      enterProcess(worker1);
      expect(again()).toBe(1);
    } finally {
      enterProcess(null);
    }
  });

  test('a module that throws while loading is still a load error, with its line', () => {
    expect(() => loadLearnerModule(`export function f() {}\nthrow new Error('boom');`)).toThrow(expect.objectContaining({ message: 'Error: boom', line: 2, phase: 'load' }));
    expect(() => loadLearnerModule(`throw 'nope';`)).toThrow(expect.objectContaining({ message: 'Your module threw "nope" while loading', phase: 'load' }));
  });
});

// What a learner writes before the lesson: remember what was sent, in memory.
const IN_MEMORY_DEDUPE = `import type { Env, ReceiptMessage } from 'effectively-once';

const sent = new Set<number>();

export async function handleMessage(msg: ReceiptMessage, env: Env) {
  env.log('already sent:', [...sent].join(',') || 'nothing');
  if (sent.has(msg.orderId)) return 'ack';
  sent.add(msg.orderId);
  await env.email.send({ to: msg.customer, orderId: msg.orderId, subject: 'Your receipt' });
  return 'ack';
}
`;

const sim = simDbPerFile();

describe.each(['receipt-redelivery', 'concurrent-redelivery'])('an in-memory dedupe set in %s', (id) => {
  const scenario = lessonById(id)!;

  test('does not stop the second receipt, on the first run as on every rerun', async () => {
    const run = () => runScenario(sim.db, { scenario, code: IN_MEMORY_DEDUPE, variant: 'in-memory', seed: scenario.demo.seed });
    const first = await run();
    expect(first.invariants.find((i) => i.id === 'at-most-one-receipt')?.held, replayHint(first)).toBe(false);
    // The second handling, wherever it ran, remembered nothing of the first.
    const seen = first.trace.filter((e) => e.type === 'log' && /already sent:/.test(e.text)).map((e) => e.text);
    expect(seen.length, replayHint(first)).toBeGreaterThanOrEqual(2);
    expect(seen.every((t) => t.endsWith('already sent: nothing')), seen.join('\n')).toBe(true);
    const second = await run();
    expect(second.verdict).toBe(first.verdict);
    expect(second.traceHash).toBe(first.traceHash);
  });

  test('Explore finds it too, and says the same on a second exploration', async () => {
    const once = () => explore(sim.db, { scenario, code: IN_MEMORY_DEDUPE, variant: 'in-memory', runs: 30, shrinkBudget: 20 });
    const a = await once();
    const b = await once();
    expect(a.violations).toBeGreaterThan(0);
    expect(b.violations).toBe(a.violations);
    expect(b.counterexample?.choices).toEqual(a.counterexample?.choices);
  });
});
