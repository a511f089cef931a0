/**
 * An exploration spread over several databases (the tab's pool, components/db/explore-pool.ts)
 * gives the very result one database gives: its schedules run in shares on two PGlite instances,
 * out of order, and `finishExploration` counts them and shrinks the first violation on one of them.
 */
import { describe, expect, test } from 'vitest';
import { explore, exploreSeed, finishExploration, summarize, variantCode, type ExploreResult, type ScheduleSummary } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { simDbPerFile } from './helpers/sim-db';

const one = simDbPerFile();
const other = simDbPerFile();

const RUNS = 40;
const SHARE = 7;

/** Seeds 1…RUNS in shares of SHARE, alternately on each database, the later shares first. */
async function spread(scenarioId: string, code: string): Promise<ScheduleSummary[]> {
  const opts = { scenario: lessonById(scenarioId), code, variant: 'yours' };
  const bySeed = new Map<number, ScheduleSummary>();
  const starts = Array.from({ length: Math.ceil(RUNS / SHARE) }, (_, i) => 1 + i * SHARE).reverse();
  for (const [k, first] of starts.entries()) {
    const db = k % 2 ? one.db : other.db;
    for (let seed = first; seed < Math.min(first + SHARE, RUNS + 1); seed++) bySeed.set(seed, summarize(await exploreSeed(db, opts, seed)));
  }
  return [...bySeed.keys()].sort((a, b) => a - b).map((seed) => bySeed.get(seed)!);
}

const withoutRate = ({ schedulesPerSecond: _rate, ...rest }: ExploreResult) => rest;

describe('finishExploration', () => {
  for (const [lesson, variant] of [
    ['receipt-redelivery', 'starter'],
    ['receipt-redelivery', 'solution'],
    ['dual-write', 'starter'],
    ['concurrent-redelivery', 'starter'],
  ] as const) {
    test(`${lesson} · ${variant}: summaries from two databases give one database's result, counterexample included`, async () => {
      const code = variantCode(lessonById(lesson), variant);
      const opts = { scenario: lessonById(lesson), code, variant: 'yours', runs: RUNS };
      const single = await explore(one.db, opts);
      const merged = await finishExploration(one.db, opts, await spread(lesson, code), 123);
      expect(withoutRate(merged)).toEqual(withoutRate(single));
      expect(merged.schedulesPerSecond).toBe(Math.round((single.runs / 123) * 1000));
      if (variant === 'starter') expect(merged.counterexample, 'the starter breaks: there is something to shrink').not.toBeNull();
    }, 120_000);
  }

  test('a shrink budget of 0 counts the same and keeps the first violation as it came', async () => {
    const code = variantCode(lessonById('receipt-redelivery'), 'starter');
    const opts = { scenario: lessonById('receipt-redelivery'), code, variant: 'yours', runs: RUNS };
    const summaries = await spread('receipt-redelivery', code);
    const shrunk = await finishExploration(one.db, opts, summaries, null);
    const asCame = await finishExploration(one.db, { ...opts, shrinkBudget: 0 }, summaries, null);
    expect({ ...withoutRate(asCame), counterexample: null }).toEqual({ ...withoutRate(shrunk), counterexample: null });
    expect(shrunk.counterexample!.shrinkRuns).toBeGreaterThan(0);
    expect(asCame.counterexample).toMatchObject({ seed: shrunk.counterexample!.seed, shrinkRuns: 0 });
  });

  test('code that cannot load stops the count at its first schedule, as one database does', async () => {
    const opts = { scenario: lessonById('receipt-redelivery'), code: 'export const handle = (', variant: 'yours', runs: 5 };
    const single = await explore(one.db, opts);
    const summaries = [];
    for (let seed = 1; seed <= 5; seed++) summaries.push(summarize(await exploreSeed(other.db, opts, seed)));
    const merged = await finishExploration(one.db, opts, summaries, null);
    expect(withoutRate(merged)).toEqual(withoutRate(single));
    expect(merged.errors).toBe(1);
    expect(merged.runs).toBe(1);
  });

  test('summaries out of seed order, or with one missing, are refused', async () => {
    const opts = { scenario: lessonById('receipt-redelivery'), code: variantCode(lessonById('receipt-redelivery'), 'solution'), variant: 'yours', runs: 3 };
    const s = (seed: number): ScheduleSummary => ({ seed, verdict: 'held', broken: [] });
    await expect(finishExploration(one.db, opts, [s(1), s(3), s(2)], null)).rejects.toThrow(/seed 3, not 2/);
    await expect(finishExploration(one.db, opts, [s(2)], null)).rejects.toThrow(/seed 2, not 1/);
  });
});
