/**
 * Explore on every database worker the tab can afford, and warm them up before the learner asks.
 *
 * The tab's database worker (./worker-client.ts) serves queries, runs and explorations. Where the
 * hardware has the cores and the memory, the pool starts helper workers, each with its own PGlite
 * (booted from the same prebuilt data directory, in the same locked-down realm), once the page is
 * idle. An exploration then hands out seeds in shares of `SHARE` to whichever worker is free; the
 * summaries are put back in seed order and the tab's own worker counts them and shrinks the first
 * violation (`finishExploration`). Runs are pure functions of their inputs, so the result is the
 * one a single worker gives: the same counts, the same counterexample. Only the rate differs.
 *
 * Each worker keeps its own watchdog: learner code stuck in one of them stops that worker (it is
 * replaced, as a single worker is) and the exploration, the others' shares cancelled.
 *
 * `prepare` warms every worker for the lesson on screen (its starter and solution, results
 * discarded): a page's first exploration otherwise pays V8's and the WebAssembly tiers' first
 * passes, two to three times its second. Any request stops a warm-up at its next schedule, and a
 * request to the tab's worker stops the helpers' too (`quiet`).
 */
import type { ExploreResult, ScheduleSummary } from '@/simulations/run/run';
import type { ExploreRequest } from './protocol';
import { throttledProgress, type ExploreProgress } from './explore-progress';
import { tabWorkerClient, WorkerClient } from './worker-client';

/** Schedules per share: small enough to balance two workers, large enough that messages cost nothing. */
export const SHARE = 10;
/** Schedules of each of the lesson's codes a warm-up runs, per worker. */
export const WARM_RUNS = 100;
/** Most workers an exploration uses (the tab's own included). */
export const MAX_WORKERS = 3;
/**
 * Memory one more worker takes: PGlite's heap, its compiled WebAssembly and the engine, measured
 * in Chromium's renderer (docs/benchmarks.md).
 */
export const WORKER_MEMORY_MB = 300;
/** Where a learner (or a test) may set the number of workers, 1 to MAX_WORKERS. */
export const WORKERS_SETTING = 'effectively-once.explore-workers';

/**
 * How many workers to explore on: one per core, at most MAX_WORKERS, and no more than a quarter of
 * the device's memory (navigator.deviceMemory, in GB; browsers without it are taken as 4 GB). A
 * valid `setting` (1 to MAX_WORKERS) wins.
 */
export function exploreWorkerCount(hardware: { hardwareConcurrency?: number; deviceMemory?: number }, setting?: string | null): number {
  const chosen = Number(setting);
  if (setting && Number.isInteger(chosen) && chosen >= 1 && chosen <= MAX_WORKERS) return chosen;
  const cores = hardware.hardwareConcurrency ?? 1;
  const memoryMb = (hardware.deviceMemory ?? 4) * 1024;
  return Math.max(1, Math.min(cores, MAX_WORKERS, Math.floor(memoryMb / 4 / WORKER_MEMORY_MB)));
}

/** The schedules of an exploration's shares, in seed order, up to the first share cut short. */
export function inSeedOrder(shares: ReadonlyMap<number, { count: number; summaries: ScheduleSummary[] }>, firstSeed: number): ScheduleSummary[] {
  const out: ScheduleSummary[] = [];
  for (let seed = firstSeed; shares.has(seed); ) {
    const share = shares.get(seed)!;
    out.push(...share.summaries);
    if (share.summaries.length < share.count) break;
    seed += share.count;
  }
  return out;
}

type Job = { result: Promise<ExploreResult>; cancel(): void };

export interface ExplorePoolOptions {
  primary: WorkerClient;
  /** Starts one helper worker. */
  createHelper: () => WorkerClient;
  /** Workers in all, the primary included. */
  workers: number;
  now?: () => number;
}

export class ExplorePool {
  private readonly helpers: WorkerClient[] = [];
  /** Lessons each worker was warmed up for (a replaced worker is a new client's state, not tracked). */
  private readonly warmed = new WeakMap<WorkerClient, Set<string>>();
  private readonly now: () => number;
  /** The warm-ups and helper boots asked for, one after another. */
  private preparing: Promise<void> = Promise.resolve();

  constructor(private readonly options: ExplorePoolOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** How many workers explorations spread over once all are up. */
  get workers(): number {
    return this.options.workers;
  }

  /** How many workers an exploration would use right now (those booted and ready). */
  readyWorkers(): WorkerClient[] {
    return [this.options.primary, ...this.helpers].filter((w) => w.getState().status === 'ready');
  }

  /**
   * Warm every worker up for `scenario` with `codes`, starting the helpers (once) on the way. One
   * thing at a time, so that the page and the learner's own requests keep a core: the tab's worker
   * warms up first, then each helper boots and warms up in turn. Call it when the page is idle.
   */
  prepare(scenario: string, codes: string[]): Promise<void> {
    this.preparing = this.preparing.then(async () => {
      await this.warmOnce(this.options.primary, scenario, codes);
      for (let i = 0; 1 + i < this.options.workers; i++) {
        this.helpers[i] ??= this.options.createHelper();
        await this.warmOnce(this.helpers[i], scenario, codes);
      }
    });
    return this.preparing;
  }

  /** Stop the helpers' warm-ups (the learner asked the tab's worker for something: leave the cores to it). */
  quiet(): void {
    for (const helper of this.helpers) helper.stopWarmUp();
  }

  /** Warm `worker` up for `scenario` once it is ready, unless it was already; settles when done (never rejects). */
  private async warmOnce(worker: WorkerClient, scenario: string, codes: string[]): Promise<void> {
    const lessons = this.warmed.get(worker) ?? new Set<string>();
    this.warmed.set(worker, lessons);
    if (lessons.has(scenario)) return;
    lessons.add(scenario);
    if (!(await readyOrNot(worker))) return;
    // A warm-up only saves time: a stopped or failed one changes nothing for the learner.
    await worker.warm(scenario, codes, WARM_RUNS).catch(() => {});
  }

  /** Explore; `cancel()` stops after the current schedules (the result then has fewer runs). */
  explore(request: Omit<ExploreRequest, 'type' | 'id'>, onProgress?: (p: ExploreProgress) => void): Job {
    const workers = this.readyWorkers();
    const primary = this.options.primary;
    if (workers.length < 2 || !workers.includes(primary)) return primary.explore(request, onProgress);
    return this.spread(request, workers, onProgress);
  }

  /** Explore in shares over `workers` (the tab's own among them), and finish on the tab's own. */
  private spread(request: Omit<ExploreRequest, 'type' | 'id'>, workers: WorkerClient[], onProgress?: (p: ExploreProgress) => void): Job {
    const { scenario, code, variant, runs, shrinkBudget } = request;
    const firstSeed = 1;
    const end = firstSeed + runs;
    const shares = new Map<number, { count: number; summaries: ScheduleSummary[] }>();
    const running = new Set<{ cancel(): void }>();
    let stopped = false;
    let next = firstSeed;
    let done = 0;
    let failure: unknown = null;
    const cancel = () => {
      if (stopped) return;
      stopped = true;
      for (const job of running) job.cancel();
    };
    const started = this.now();
    const progress = throttledProgress(this.now, runs, (p) => onProgress?.(p));
    const lane = async (worker: WorkerClient) => {
      while (!stopped && next < end) {
        const share = { firstSeed: next, count: Math.min(SHARE, end - next) };
        next += share.count;
        const job = worker.exploreSeeds({ scenario, code, variant, ...share });
        running.add(job);
        let summaries: ScheduleSummary[] | null = null;
        try {
          summaries = await job.result;
        } catch (error) {
          failure ??= error;
        } finally {
          running.delete(job);
        }
        if (!summaries) return cancel();
        shares.set(share.firstSeed, { count: share.count, summaries });
        done += summaries.length;
        progress(done);
        // Cut short: code that cannot load (every schedule would say so), or a cancel.
        if (summaries.length < share.count || summaries.at(-1)?.verdict === 'error') cancel();
      }
    };
    const result = (async () => {
      // Two lanes per worker: its next share is already queued when one ends, so it never waits for the page.
      await Promise.all(workers.flatMap((worker) => [lane(worker), lane(worker)]));
      if (failure) throw failure;
      const elapsedMs = this.now() - started;
      return this.options.primary.finishExplore({ scenario, code, variant, summaries: inSeedOrder(shares, firstSeed), elapsedMs, ...(shrinkBudget === undefined ? {} : { shrinkBudget }) });
    })();
    return { result, cancel };
  }
}

/** Whether `worker` is (or once booting, becomes) ready. */
function readyOrNot(worker: WorkerClient): Promise<boolean> {
  const status = worker.getState().status;
  if (status !== 'booting') return Promise.resolve(status === 'ready');
  return new Promise((resolve) => {
    const unsubscribe = worker.subscribe(() => {
      const now = worker.getState().status;
      if (now === 'booting') return;
      unsubscribe();
      resolve(now === 'ready');
    });
  });
}

const TAB_POOL = Symbol.for('effectively-once.explore-pool');

function storedSetting(): string | null {
  try {
    return globalThis.localStorage?.getItem(WORKERS_SETTING) ?? null;
  } catch {
    return null;
  }
}

const helperWorker = () => new Worker(new URL('./pglite.worker.ts', import.meta.url), { type: 'module', name: 'pglite-helper' });

/** The tab's pool, around the tab's one database worker (`tabWorkerClient`). */
export function tabExplorePool(): ExplorePool {
  const holder = globalThis as typeof globalThis & { [TAB_POOL]?: ExplorePool };
  return (holder[TAB_POOL] ??= new ExplorePool({
    primary: tabWorkerClient(),
    createHelper: () => new WorkerClient({ earlyWorker: () => null, createWorker: helperWorker }),
    workers: exploreWorkerCount(typeof navigator === 'undefined' ? {} : (navigator as Navigator & { deviceMemory?: number }), storedSetting()),
  }));
}
