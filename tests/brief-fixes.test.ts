/**
 * A fix written from the lesson's brief alone (not the solution) holds under the demonstration
 * plan and across 200 explored schedules, as the lab's Explore runs them. A review found briefs
 * that led to fixes Explore rejected (no retry after a lost answer, a lease longer than the queue's
 * patience, no provider key, the counter and its audit line written apart, a batch call that
 * times out); each fixture here does what its brief now says, in a learner's words rather than
 * the solution's. If a scenario changes so that its brief's advice no longer suffices, this fails.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { explore, runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const DIR = new URL('./fixtures/brief-fixes/', import.meta.url);
const FIXTURES = readdirSync(DIR).filter((f) => f.endsWith('.ts')).sort();

const sim = simDbPerFile();

test('there are fixtures to check', () => {
  expect(FIXTURES).toEqual(['batch-credits.ts', 'human-rerun.ts', 'moving-answers.ts', 'replay-safety.ts', 'webhook-dedupe.ts']);
});

describe.each(FIXTURES)('%s', (file) => {
  const scenario = lessonById(file.replace(/\.ts$/, ''));
  const code = readFileSync(new URL(file, DIR), 'utf8');
  const variant = `tests/fixtures/brief-fixes/${file}`;

  test('holds under the demonstration plan', async () => {
    const r = await runScenario(sim.db, { scenario, code, variant, seed: scenario.demo.seed });
    expect(r.codeErrors, replayHint(r)).toEqual([]);
    expect(r.invariants.filter((i) => !i.held), replayHint(r)).toEqual([]);
  });

  test('explores 200 schedules without a violation', async () => {
    const e = await explore(sim.db, { scenario, code, variant, runs: 200 });
    const cx = e.counterexample;
    expect(e.violations, cx ? replayHint({ scenario: scenario.id, variant, ...cx }) + ` — ${cx.invariant}: ${cx.detail}` : '').toBe(0);
    expect(e.runs).toBe(200);
  });
});
