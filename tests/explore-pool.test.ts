/**
 * The tab's exploration pool (components/db/explore-pool.ts) with stand-in workers: how many
 * workers the hardware gets, how shares are handed out and put back in seed order, cancel, a stuck
 * worker, and the warm-up. That merged summaries give the very result one database gives is
 * tested against PGlite in tests/explore-finish.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { ExplorePool, exploreWorkerCount, inSeedOrder, MAX_WORKERS, SHARE, WARM_RUNS } from '@/components/db/explore-pool';
import type { BootState, WorkerClient } from '@/components/db/worker-client';
import { StuckError } from '@/components/db/worker-client';
import type { ExploreResult, ScheduleSummary } from '@/simulations/run/run';

const held = (seed: number): ScheduleSummary => ({ seed, verdict: 'held', broken: [] });

/** A worker that answers shares at once (or never, or by throwing), and records what it was asked. */
class FakeWorker {
  state: BootState = { status: 'ready', restarts: 0 };
  shares: { firstSeed: number; count: number }[] = [];
  finished: ScheduleSummary[][] = [];
  warmed: { scenario: string; codes: string[]; runs: number }[] = [];
  explored = 0;
  cancels = 0;
  warmStops = 0;
  listeners = new Set<() => void>();
  /** How a share is answered: the summaries, or a rejection. */
  answer: (share: { firstSeed: number; count: number }) => Promise<ScheduleSummary[]> = async ({ firstSeed, count }) =>
    Array.from({ length: count }, (_, i) => held(firstSeed + i));

  getState = () => this.state;
  subscribe = (l: () => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
  setStatus(status: BootState['status']) {
    this.state = { status, restarts: 0 };
    for (const l of [...this.listeners]) l();
  }
  explore() {
    this.explored++;
    return { result: Promise.resolve({ runs: 200 } as ExploreResult), cancel() {} };
  }
  exploreSeeds(request: { firstSeed: number; count: number }) {
    this.shares.push({ firstSeed: request.firstSeed, count: request.count });
    return { result: this.answer(request), cancel: () => this.cancels++ };
  }
  shrinkBudgets: (number | undefined)[] = [];
  finishExplore(request: { summaries: ScheduleSummary[]; elapsedMs: number; shrinkBudget?: number }) {
    this.finished.push(request.summaries);
    this.shrinkBudgets.push(request.shrinkBudget);
    return Promise.resolve({ runs: request.summaries.length, violations: request.summaries.filter((s) => s.verdict === 'violated').length } as ExploreResult);
  }
  warm(scenario: string, codes: string[], runs: number) {
    this.warmed.push({ scenario, codes, runs });
    return Promise.resolve({ runs: 0, ms: 0 });
  }
  stopWarmUp() {
    this.warmStops++;
  }
}

function pool(workers: number, helpers: FakeWorker[] = []) {
  const primary = new FakeWorker();
  const made: FakeWorker[] = [];
  const p = new ExplorePool({
    primary: primary as unknown as WorkerClient,
    createHelper: () => {
      const h = helpers[made.length] ?? new FakeWorker();
      made.push(h);
      return h as unknown as WorkerClient;
    },
    workers,
  });
  return { p, primary, made };
}

const REQUEST = { scenario: 'receipt-redelivery', code: 'x', variant: 'your code', runs: 200 };

describe('exploreWorkerCount', () => {
  test('one per core, at most MAX_WORKERS, within a quarter of the memory; a valid setting wins', () => {
    expect(exploreWorkerCount({ hardwareConcurrency: 2, deviceMemory: 8 })).toBe(2);
    expect(exploreWorkerCount({ hardwareConcurrency: 16, deviceMemory: 8 })).toBe(MAX_WORKERS);
    expect(exploreWorkerCount({ hardwareConcurrency: 8, deviceMemory: 2 })).toBe(1);
    expect(exploreWorkerCount({ hardwareConcurrency: 8, deviceMemory: 0.5 })).toBe(1);
    expect(exploreWorkerCount({})).toBe(1);
    expect(exploreWorkerCount({ hardwareConcurrency: 2, deviceMemory: 8 }, '1')).toBe(1);
    expect(exploreWorkerCount({ hardwareConcurrency: 1 }, '3')).toBe(3);
    for (const bad of ['0', '4', '1.5', 'two', '']) expect(exploreWorkerCount({ hardwareConcurrency: 2, deviceMemory: 8 }, bad)).toBe(2);
  });
});

describe('inSeedOrder', () => {
  test('puts shares back in seed order and stops after a share cut short', () => {
    const shares = new Map([
      [11, { count: 10, summaries: Array.from({ length: 4 }, (_, i) => held(11 + i)) }],
      [1, { count: 10, summaries: Array.from({ length: 10 }, (_, i) => held(1 + i)) }],
      [21, { count: 10, summaries: Array.from({ length: 10 }, (_, i) => held(21 + i)) }],
    ]);
    expect(inSeedOrder(shares, 1).map((s) => s.seed)).toEqual([...Array.from({ length: 10 }, (_, i) => 1 + i), 11, 12, 13, 14]);
    expect(inSeedOrder(new Map(), 1)).toEqual([]);
  });
});

describe('ExplorePool', () => {
  test('with one worker ready it explores on the tab’s worker as before', async () => {
    const { p, primary } = pool(1);
    await p.explore(REQUEST).result;
    expect(primary.explored).toBe(1);
    expect(primary.shares).toEqual([]);
  });

  test('a helper still booting is not waited for', async () => {
    const booting = new FakeWorker();
    booting.state = { status: 'booting', restarts: 0 };
    const { p, primary, made } = pool(2, [booting]);
    void p.prepare('receipt-redelivery', ['a', 'b']);
    await new Promise((r) => setTimeout(r, 0));
    expect(made, 'the helper was started once the tab’s worker had warmed up').toHaveLength(1);
    await p.explore(REQUEST).result;
    expect(primary.explored).toBe(1);
    expect(booting.shares).toEqual([]);
  });

  test('two workers share every seed once, and the tab’s worker finishes with all of them in order', async () => {
    const { p, primary, made } = pool(2);
    await p.prepare('receipt-redelivery', ['a', 'b']);
    const progress: number[] = [];
    const result = await p.explore(REQUEST, (pr) => progress.push(pr.done)).result;
    expect(result.runs).toBe(200);
    const helper = made[0];
    expect(primary.shares.length).toBeGreaterThan(0);
    expect(helper.shares.length).toBeGreaterThan(0);
    const seeds = [...primary.shares, ...helper.shares].flatMap((s) => Array.from({ length: s.count }, (_, i) => s.firstSeed + i)).sort((a, b) => a - b);
    expect(seeds).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(Math.max(...[...primary.shares, ...helper.shares].map((s) => s.count))).toBe(SHARE);
    // Each worker has its next share queued while it runs one.
    expect(primary.shares.length + helper.shares.length).toBe(200 / SHARE);
    expect(primary.finished).toHaveLength(1);
    expect(primary.finished[0].map((s) => s.seed)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(progress.at(-1)).toBe(200);
  });

  test("an exploration's shrink budget reaches the worker that finishes it (presenter mode shrinks nothing)", async () => {
    const { p, primary } = pool(2);
    await p.prepare('receipt-redelivery', ['a', 'b']);
    await p.explore({ ...REQUEST, shrinkBudget: 0 }).result;
    await p.explore(REQUEST).result;
    expect(primary.shrinkBudgets).toEqual([0, undefined]);
  });

  test('code that cannot load stops the exploration at its first schedule', async () => {
    const { p, primary, made } = pool(2);
    await p.prepare('x', []);
    primary.answer = async ({ firstSeed }) => [{ seed: firstSeed, verdict: 'error', broken: [] }];
    made[0].answer = async ({ firstSeed }) => [{ seed: firstSeed, verdict: 'error', broken: [] }];
    await p.explore(REQUEST).result;
    expect(primary.finished[0].map((s) => s.seed)).toEqual([1]);
    // Two shares queued per worker at most, and none handed out after.
    expect(primary.shares.length + made[0].shares.length).toBeLessThanOrEqual(4);
  });

  test('cancel stops handing out shares and finishes with the schedules run so far, in order', async () => {
    const { p, primary, made } = pool(2);
    await p.prepare('x', []);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The helper's first share is cut short by the cancel; the primary's answers in full.
    made[0].answer = async ({ firstSeed }) => {
      await gate;
      return [held(firstSeed), held(firstSeed + 1)];
    };
    const job = p.explore(REQUEST);
    await Promise.resolve();
    job.cancel();
    release();
    await job.result;
    expect(made[0].cancels, 'each of the helper’s two queued shares is cancelled once').toBe(2);
    const seeds = primary.finished[0].map((s) => s.seed);
    expect(seeds).toEqual(Array.from({ length: seeds.length }, (_, i) => i + 1));
    expect(seeds.length).toBeLessThan(200);
  });

  test('a stuck helper fails the exploration with its StuckError and the other worker’s share is cancelled', async () => {
    const { p, primary, made } = pool(2);
    await p.prepare('x', []);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    primary.answer = async ({ firstSeed, count }) => {
      await gate;
      return Array.from({ length: count }, (_, i) => held(firstSeed + i));
    };
    made[0].answer = async () => {
      throw new StuckError(2_500);
    };
    const job = p.explore(REQUEST);
    const outcome = job.result.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 0));
    expect(primary.cancels, 'both shares queued on the other worker are cancelled').toBe(2);
    release();
    expect(await outcome).toBeInstanceOf(StuckError);
    expect(primary.finished).toEqual([]);
  });

  test('prepare warms the tab’s worker, then starts each helper and warms it once it is ready, once per lesson', async () => {
    const booting = new FakeWorker();
    booting.state = { status: 'booting', restarts: 0 };
    const { p, primary, made } = pool(2, [booting]);
    const first = p.prepare('receipt-redelivery', ['starter', 'solution']);
    expect(made, 'no helper boots while the tab’s worker warms up').toHaveLength(0);
    await new Promise((r) => setTimeout(r, 0));
    expect(made).toHaveLength(1);
    expect(primary.warmed).toEqual([{ scenario: 'receipt-redelivery', codes: ['starter', 'solution'], runs: WARM_RUNS }]);
    expect(booting.warmed).toEqual([]);
    booting.setStatus('ready');
    await first;
    expect(booting.warmed).toHaveLength(1);
    await p.prepare('receipt-redelivery', ['starter', 'solution']);
    expect(made).toHaveLength(1);
    expect(primary.warmed).toHaveLength(1);
    await p.prepare('dual-write', ['s']);
    expect(primary.warmed.map((w) => w.scenario)).toEqual(['receipt-redelivery', 'dual-write']);
    expect(booting.warmed.map((w) => w.scenario)).toEqual(['receipt-redelivery', 'dual-write']);
  });

  test('a helper that fails to boot is skipped, and quiet() stops the helpers’ warm-ups', async () => {
    const broken = new FakeWorker();
    broken.state = { status: 'booting', restarts: 0 };
    const { p, made } = pool(3, [broken]);
    const prepared = p.prepare('x', ['s']);
    await new Promise((r) => setTimeout(r, 0));
    broken.setStatus('error');
    await prepared;
    expect(broken.warmed).toEqual([]);
    expect(made).toHaveLength(2);
    expect(made[1].warmed).toHaveLength(1);
    p.quiet();
    expect(made.map((h) => h.warmStops)).toEqual([1, 1]);
  });
});
