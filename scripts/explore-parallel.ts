/**
 * The explorer on several threads (Node only; the CLI and the bench use it, the browser lab does not).
 *
 * Schedules are independent, so N worker threads (./explore-worker.ts), each with its own PGlite,
 * run chunks of seeds; the main thread adds their summaries to the tally in seed order, exactly as
 * `explore` does on one thread, and one worker shrinks the first violating seed with the same
 * `shrink`. Runs are pure functions of their inputs, so the result is the same whatever N is: same
 * counts, same histogram, same counterexample. Only `schedulesPerSecond` differs (it times the
 * schedules, not the boot of the workers' databases, as the one-thread figure does not time its boot).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { prebuiltDataDir } from './node-pglite';
import { ExploreTally, type Counterexample, type ExploreOptions, type ExploreResult, type ScheduleSummary } from '../simulations/run/run';

/** Options of a parallel exploration. */
export interface ParallelExploreOptions extends Omit<ExploreOptions, 'onProgress' | 'shouldStop' | 'hostNow'> {
  workers: number;
  /** Untimed schedules each worker runs first, as the bench warms up its one thread (default 0). */
  warmUp?: number;
  /** Called as schedules are counted, in seed order. */
  onProgress?: (done: number, total: number) => void;
  /** Stop the command when a thread's learner code holds it this long, saying `message` (./cli-watchdog.ts). */
  stuckCode?: StuckCode;
}

/** A thread's watchdog: how long learner code may hold the thread, and what to say then. */
export interface StuckCode {
  limitMs: number;
  message: string;
}

/** What the workers answer. */
export type WorkerReply =
  | { type: 'ready' }
  | { type: 'ran'; summaries: ScheduleSummary[] }
  | { type: 'shrunk'; counterexample: Counterexample }
  | { type: 'error'; message: string; stack?: string };

/** What the workers are asked. */
export type WorkerRequest = { type: 'run'; firstSeed: number; count: number } | { type: 'shrink'; seed: number; shrinkBudget?: number };

/** Data each worker starts with. */
export interface WorkerData {
  scenarioId: string;
  code: string;
  variant: string;
  warmUp: number;
  /** generated/pglite-datadir.tar when the build made one (workers check its fingerprint). */
  dataDir: ArrayBuffer | null;
  /** Each thread watches itself once its database is up; null for the lessons' own code. */
  stuckCode: StuckCode | null;
}

/**
 * How many threads an exploration of `runs` schedules should use by default. Each worker boots its
 * own PGlite (~1.5 s from the prebuilt data directory, ~3 s with initdb, ~0.5 GB) and warms up its
 * own JIT (its first few hundred schedules run at half speed); on 2 cores two threads only broke
 * even with one at 1,000 schedules and were 14% faster at 3,000 (end to end, CLI). So: threads from
 * 2,000 schedules on.
 */
export function defaultWorkers(runs: number): number {
  return runs >= 2000 ? Math.max(1, Math.min(availableParallelism(), 4)) : 1;
}

/** One worker thread, asked one thing at a time. */
class ExploreWorker {
  private readonly worker: Worker;
  private waiting: { resolve(r: WorkerReply): void; reject(e: unknown): void } | null = null;
  private failure: Error | null = null;
  readonly ready: Promise<void>;

  constructor(data: WorkerData) {
    const entry = new URL('./explore-worker' + (import.meta.url.endsWith('.ts') ? '.ts' : '.js'), import.meta.url);
    if (entry.pathname.endsWith('.ts')) {
      // Run through tsx, as the CLI itself is: register its loader in the thread, then load the entry.
      const api = import.meta.resolve('tsx/esm/api');
      const boot = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
      this.worker = new Worker(boot, { eval: true, workerData: data });
    } else {
      this.worker = new Worker(entry, { workerData: data });
    }
    this.worker.on('message', (m: WorkerReply) => this.answer(m));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`an explore worker exited (code ${code})`)));
    this.ready = new Promise<WorkerReply>((resolve, reject) => (this.waiting = { resolve, reject })).then(() => undefined);
    // Awaited together with the others' ready; when several fail, the first failure is reported.
    this.ready.catch(() => {});
  }

  private answer(m: WorkerReply) {
    const w = this.waiting;
    this.waiting = null;
    if (!w) return;
    if (m.type === 'error') {
      const err = new Error(m.message);
      if (m.stack) err.stack = m.stack;
      w.reject(err);
    } else w.resolve(m);
  }

  private fail(err: Error) {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = null;
    w?.reject(err);
  }

  ask(request: WorkerRequest): Promise<WorkerReply> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('an explore worker was asked twice at once'));
    const reply = new Promise<WorkerReply>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.worker.postMessage(request);
    return reply;
  }

  async stop() {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

/** Explore on `opts.workers` threads; the same result as `explore` on one, plus `workers`. */
export async function exploreParallel(opts: ParallelExploreOptions): Promise<ExploreResult & { workers: number }> {
  const runs = opts.runs;
  const firstSeed = opts.firstSeed ?? 1;
  const n = Math.max(1, Math.min(opts.workers, runs));
  const data: WorkerData = { scenarioId: opts.scenario.id, code: opts.code, variant: opts.variant, warmUp: opts.warmUp ?? 0, dataDir: prebuiltDataDir(), stuckCode: opts.stuckCode ?? null };
  const pool = Array.from({ length: n }, () => new ExploreWorker(data));
  try {
    await Promise.all(pool.map((w) => w.ready));
    const tally = new ExploreTally(opts.scenario);
    const summaries: (ScheduleSummary | undefined)[] = new Array(runs);
    // Small chunks keep the threads evenly busy to the end; large ones cost fewer messages.
    const chunk = Math.max(1, Math.min(50, Math.ceil(runs / (n * 8))));
    let next = 0;
    let counted = 0;
    let stopped = false;
    const count = () => {
      while (!stopped && counted < runs && summaries[counted]) {
        if (!tally.add(summaries[counted]!)) stopped = true;
        counted++;
        opts.onProgress?.(tally.done, runs);
      }
    };
    const t0 = performance.now();
    await Promise.all(
      pool.map(async (w) => {
        while (!stopped && next < runs) {
          const start = next;
          const size = Math.min(chunk, runs - start);
          next += size;
          const reply = await w.ask({ type: 'run', firstSeed: firstSeed + start, count: size });
          if (reply.type !== 'ran') throw new Error(`unexpected reply ${reply.type}`);
          reply.summaries.forEach((s, k) => (summaries[start + k] = s));
          count();
        }
      }),
    );
    const elapsed = performance.now() - t0;
    let counterexample: Counterexample | null = null;
    if (tally.firstViolation !== null) {
      const reply = await pool[0].ask({ type: 'shrink', seed: tally.firstViolation, shrinkBudget: opts.shrinkBudget });
      if (reply.type !== 'shrunk') throw new Error(`unexpected reply ${reply.type}`);
      counterexample = reply.counterexample;
    }
    return { ...tally.result({ ...opts, firstSeed }, elapsed, counterexample), workers: n };
  } finally {
    await Promise.all(pool.map((w) => w.stop()));
  }
}
