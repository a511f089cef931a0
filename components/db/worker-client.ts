/**
 * The page's end of the database worker (./pglite.worker.ts): requests with ids, answers matched
 * back to promises, and the watchdog. While a run or an exploration is outstanding the worker
 * sends something (a heartbeat, progress, the answer) at least every ~250 ms; when it has been
 * silent for `stuckAfterMs` the learner's code is stuck in a loop that never yields. The client
 * then terminates the worker, rejects the job with a `StuckError`, and starts a fresh worker
 * (PGlite boots again). The page's main thread never waits on the worker, so it stays responsive.
 *
 * A query from the query panel is not watched (a slow statement, `pg_sleep(30)`, is no bug), and
 * while one is running the run queued behind it has not started: its silence is not counted. The
 * panel can stop such a query (`stopQuery`); PGlite cannot interrupt a statement, so that too
 * replaces the worker. A warm-up is not watched either: it runs the lesson's own code.
 *
 * Why one file of ~460 lines: the page's side of the worker protocol — boot, restarts, the
 * watchdog and the request queue share one connection's state.
 */
import type { LabRun } from '@/simulations/run/lab-run';
import { takeEarlyWorker, type EarlyWorker } from './early-worker';
import type { ExploreProgress } from './explore-progress';
import type { ExploreResult, ScheduleSummary } from '@/simulations/run/run';
import {
  SqlError,
  type BootTimings,
  type ExploreFinishRequest,
  type ExploreRequest,
  type ExploreSeedsRequest,
  type QueryResult,
  type RunRequest,
  type UnhandledRejection,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';

export type DbStatus = 'booting' | 'ready' | 'error';

/** How the worker stands, as the page shows it. */
export interface BootState {
  status: DbStatus;
  version?: string;
  bootMs?: number;
  timings?: BootTimings;
  /** Whether the database came from the prebuilt data directory (false: initdb ran in the tab). */
  prebuilt?: boolean;
  /** When the page created the worker, in ms since navigation start (the page's performance.now()). */
  workerCreatedMs?: number;
  /** Whether the page's HTML started this worker (./early-worker.ts) rather than the page's code. */
  earlyWorker?: boolean;
  /** When the worker's clock started, in ms since navigation start: add it to `timings` to place them. */
  workerStartMs?: number;
  error?: string;
  /** How many times the worker was restarted (after a stuck run, or to stop a query). */
  restarts: number;
  /** A run or an exploration is waiting for a query the worker is still running (the query panel's). */
  waitingForQuery?: boolean;
}

/** A run's answer. */
export interface RunAnswer {
  run: LabRun;
  unhandled: UnhandledRejection[];
  strippedData: boolean;
}

export type { ExploreProgress } from './explore-progress';

/** The learner's code kept the worker busy without yielding, and was stopped (by the worker's loop guard, or by replacing the worker). */
export class StuckError extends Error {
  constructor(readonly silentMs: number) {
    super(
      `Your code ran for ${Math.round(silentMs / 1000)} s without yielding: a loop that never ends, or synchronous work too long between two awaits. The run was stopped. Your code is kept.`,
    );
    this.name = 'StuckError';
  }
}

/** A query stopped from the page: the worker running it was replaced. */
export class QueryStoppedError extends SqlError {
  /** `behind`: this job was waiting behind the stopped query, and never started. */
  constructor(readonly behind = false) {
    super({
      message: behind
        ? "This was waiting for the query you stopped, and did not start: the tab's database was restarted to stop it. Try again once it is ready."
        : "Query stopped. PostgreSQL in the browser cannot interrupt a statement, so the tab's database was restarted, with the lesson's schema and empty tables.",
    });
    this.name = 'QueryStoppedError';
  }
}

type Job =
  | { kind: 'query'; resolve(r: QueryResult): void; reject(e: Error): void }
  | { kind: 'run'; resolve(r: RunAnswer): void; reject(e: Error): void }
  | { kind: 'explore'; resolve(r: ExploreResult): void; reject(e: Error): void; onProgress?(p: ExploreProgress): void }
  | { kind: 'seeds'; resolve(r: ScheduleSummary[]): void; reject(e: Error): void }
  | { kind: 'warm'; resolve(r: { runs: number; ms: number }): void; reject(e: Error): void };

/** Jobs whose silence is the learner's code: runs and explorations, not queries or warm-ups. */
function watched(kind: Job['kind']): boolean {
  return kind !== 'query' && kind !== 'warm';
}

export interface WorkerClientOptions {
  /** Silence, while a run or exploration is outstanding, that counts as stuck. */
  stuckAfterMs?: number;
  /** Starts a worker; the default is the bundled ./pglite.worker.ts. */
  createWorker?: () => Worker;
  /** The worker the page's HTML already started, if any, taken over by the first start (default: ./early-worker.ts). */
  earlyWorker?: () => EarlyWorker | null;
  /** The page's clock in ms (default `performance.now()`; tests pass their own). */
  now?: () => number;
}

/** How often the watchdog looks. */
const CHECK_EVERY_MS = 200;
/**
 * A watchdog check this late after the one before means the page's own thread did not run for that
 * long (busy, or starved of CPU on a loaded machine): the worker's messages may be waiting in the
 * queue behind the check, so silence in that time proves nothing.
 */
const PAGE_STALL_MS = 1_000;

const defaultWorker = () => new Worker(new URL('./pglite.worker.ts', import.meta.url), { type: 'module', name: 'pglite' });

export class WorkerClient {
  private worker: Worker | null = null;
  private jobs = new Map<number, Job>();
  /** What was sent for each outstanding job, should it have to be sent again to a replacement worker. */
  private requests = new Map<number, WorkerRequest>();
  private adopted = false;
  /**
   * The port the worker speaks on once it is ready (see ReadyMessage.port). From then on the
   * worker's global channel, where the learner's code can post too, is not listened to.
   */
  private port: MessagePort | null = null;
  private nextId = 1;
  private lastHeard = 0;
  /** When the watchdog last looked. */
  private lastCheck = 0;
  private readonly now: () => number;
  private watchdog: ReturnType<typeof setInterval> | null = null;
  private listeners = new Set<() => void>();
  private state: BootState = { status: 'booting', restarts: 0 };
  private readonly stuckAfterMs: number;
  private readonly createWorker: () => Worker;
  private disposed = false;
  private createdAt = 0;

  constructor(options: WorkerClientOptions = {}) {
    this.stuckAfterMs = options.stuckAfterMs ?? 2_000;
    this.now = options.now ?? (() => performance.now());
    this.createWorker = options.createWorker ?? defaultWorker;
    this.start((options.earlyWorker ?? takeEarlyWorker)());
  }

  /** The current boot state (a new object whenever it changes). */
  getState = (): BootState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private setState(next: Omit<BootState, 'restarts'>): void {
    this.state = { ...next, restarts: this.state.restarts };
    for (const l of this.listeners) l();
  }

  /** Start a worker, or take over `early`, the one the page's HTML started (with what it said so far). */
  private start(early: EarlyWorker | null = null): void {
    this.createdAt = early ? early.createdMs : this.now();
    const worker = early ? early.worker : this.createWorker();
    this.closePort();
    this.worker = worker;
    this.adopted = early !== null;
    this.setState({ status: 'booting' });
    const onMessage = (event: MessageEvent<WorkerResponse>) => {
      // Once the worker has handed over its port, its global channel is the learner's code only.
      if (worker !== this.worker || this.port) return;
      this.lastHeard = this.now();
      this.onMessage(event.data);
    };
    const onError = (event: ErrorEvent) => {
      if (worker !== this.worker) return;
      const message = `The database worker failed${event.message ? `: ${event.message}` : '.'}`;
      if (this.adopted && this.state.status === 'booting') {
        // The HTML's copy of the worker could not start (say, a page from another build than its
        // scripts): start the page's own, and hand it whatever was already asked of the first.
        console.warn(`${message} (started by the page's HTML); starting it from the page's code instead.`);
        worker.terminate();
        this.start();
        for (const request of this.requests.values()) this.worker?.postMessage(request);
        return;
      }
      this.setState({ status: 'error', error: message });
      this.failAll(new SqlError({ message }));
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', onError);
    if (early) {
      early.release();
      for (const event of early.backlog) {
        if (event.type === 'message') onMessage(event as MessageEvent<WorkerResponse>);
        else if (event.type === 'error') onError(event as ErrorEvent);
      }
    }
  }

  private onMessage(message: WorkerResponse): void {
    switch (message.type) {
      case 'ready':
        if (this.port) return;
        if (message.port) this.listenOn(message.port);
        this.setState({
          status: 'ready',
          version: message.version,
          bootMs: message.bootMs,
          timings: message.timings,
          prebuilt: message.prebuilt,
          workerCreatedMs: Math.round(this.createdAt),
          earlyWorker: this.adopted,
          workerStartMs: Math.round(message.timeOrigin - performance.timeOrigin),
        });
        return;
      case 'heartbeat':
        return;
      case 'result': {
        const job = this.take(message.id);
        const { type: _type, id: _id, ...result } = message;
        if (job?.kind === 'query') job.resolve(result);
        return;
      }
      case 'run-result': {
        const job = this.take(message.id);
        if (job?.kind === 'run') job.resolve({ run: message.run, unhandled: message.unhandled, strippedData: !!message.strippedData });
        return;
      }
      case 'explore-progress': {
        const job = this.jobs.get(message.id);
        if (job?.kind === 'explore') job.onProgress?.({ done: message.done, total: message.total, schedulesPerSecond: message.schedulesPerSecond });
        return;
      }
      case 'explore-result': {
        const job = this.take(message.id);
        if (job?.kind === 'explore') job.resolve(message.result);
        return;
      }
      case 'explore-seeds-result': {
        const job = this.take(message.id);
        if (job?.kind === 'seeds') job.resolve(message.summaries);
        return;
      }
      case 'warm-result': {
        const job = this.take(message.id);
        if (job?.kind === 'warm') job.resolve({ runs: message.runs, ms: message.ms });
        return;
      }
      case 'stuck': {
        // Stopped inside the worker: its database is still up, nothing to restart.
        this.take(message.id)?.reject(new StuckError(message.heldMs));
        return;
      }
      case 'error': {
        if (message.id === undefined) {
          this.setState({ status: 'error', error: message.message });
          return;
        }
        const job = this.take(message.id);
        const { type: _type, id: _id, ...info } = message;
        job?.reject(new SqlError(info));
        return;
      }
    }
  }

  /** Hear the worker on `port` from now on, and only there. */
  private listenOn(port: MessagePort): void {
    this.port = port;
    port.onmessage = (event: MessageEvent<WorkerResponse>) => {
      if (this.port !== port) return;
      this.lastHeard = this.now();
      this.onMessage(event.data);
    };
  }

  private closePort(): void {
    if (!this.port) return;
    this.port.onmessage = null;
    this.port.close();
    this.port = null;
  }

  private take(id: number): Job | undefined {
    const job = this.jobs.get(id);
    this.jobs.delete(id);
    this.requests.delete(id);
    this.updateWatchdog();
    this.noteQueue();
    return job;
  }

  /** Keep `waitingForQuery` true exactly while a run or exploration is queued behind a running query. */
  private noteQueue(): void {
    const waiting = this.oldestJob()?.kind === 'query' && [...this.jobs.values()].some((j) => watched(j.kind));
    if (waiting === !!this.state.waitingForQuery) return;
    this.state = { ...this.state, waitingForQuery: waiting };
    for (const l of this.listeners) l();
  }

  private failAll(error: Error | ((job: Job) => Error)): void {
    const jobs = [...this.jobs.values()];
    const errors = jobs.map((job) => (typeof error === 'function' ? error(job) : error));
    this.jobs.clear();
    this.requests.clear();
    this.updateWatchdog();
    this.noteQueue();
    jobs.forEach((job, i) => job.reject(errors[i]));
  }

  private send(request: WorkerRequest, job: Job): void {
    const worker = this.worker;
    if (!worker || this.disposed) {
      job.reject(new SqlError({ message: 'The database worker is not running.' }));
      return;
    }
    this.jobs.set(request.id, job);
    this.requests.set(request.id, request);
    if (watched(job.kind)) this.lastHeard = this.now();
    this.updateWatchdog();
    this.noteQueue();
    worker.postMessage(request);
  }

  /** Watch while a run or exploration is outstanding and the database is up. */
  private updateWatchdog(): void {
    const watching = [...this.jobs.values()].some((j) => watched(j.kind));
    if (watching && this.watchdog === null) {
      this.lastCheck = this.now();
      this.watchdog = setInterval(() => this.check(), CHECK_EVERY_MS);
    } else if (!watching && this.watchdog !== null) {
      clearInterval(this.watchdog);
      this.watchdog = null;
    }
  }

  private check(): void {
    const now = this.now();
    const late = now - this.lastCheck - CHECK_EVERY_MS;
    this.lastCheck = now;
    // During a boot the worker is legitimately busy (compiling WebAssembly): jobs wait for it.
    if (this.state.status !== 'ready') {
      this.lastHeard = now;
      return;
    }
    // Requests are answered in order: while a query sent earlier is still running (a slow one, like
    // `pg_sleep(30)`), the run behind it has not started, and the silence is the query's. A warm-up
    // runs the lesson's own code, never stuck, and the first schedules of a cold worker on a loaded
    // machine may hold it for seconds: its silence is not the learner's code either.
    const oldest = this.oldestJob();
    if (oldest && !watched(oldest.kind)) {
      this.lastHeard = now;
      return;
    }
    // A check this late means the page itself stalled: the time it could not listen is not counted
    // as the worker's silence (its heartbeats may be queued behind this check), the silence before
    // it still is. (Under CPU starvation a check ran after a 5 s stall before the worker's queued
    // heartbeats, and stopped a healthy exploration as "an infinite loop".)
    if (late > PAGE_STALL_MS - CHECK_EVERY_MS) {
      this.lastHeard = Math.min(now, this.lastHeard + late);
      return;
    }
    const silent = now - this.lastHeard;
    if (silent < this.stuckAfterMs) return;
    this.restart(new StuckError(silent));
  }

  /** The job the worker is working on: the oldest outstanding (ids grow, and a Map keeps insertion order). */
  private oldestJob(): Job | undefined {
    return this.jobs.values().next().value;
  }

  /**
   * Stop the query the worker is running, if the oldest outstanding job is one: the worker is
   * replaced (as after a stuck run), the query rejects with a `QueryStoppedError`, and so does
   * anything queued behind it. False, and nothing happens, when no query is running.
   */
  stopQuery(): boolean {
    if (this.state.status !== 'ready' || this.oldestJob()?.kind !== 'query') return false;
    this.restart((job) => new QueryStoppedError(job !== this.oldestJob()));
    return true;
  }

  /** Terminate the worker, reject everything outstanding with `reason` (or each job with its own), boot a fresh one. */
  restart(reason: Error | ((job: Job) => Error)): void {
    this.worker?.terminate();
    this.worker = null;
    this.closePort();
    this.state = { ...this.state, restarts: this.state.restarts + 1 };
    this.failAll(reason);
    if (!this.disposed) this.start();
  }

  query(sql: string): Promise<QueryResult> {
    return new Promise((resolve, reject) => this.send({ type: 'query', id: this.nextId++, sql }, { kind: 'query', resolve, reject }));
  }

  run(request: Omit<RunRequest, 'type' | 'id'>): Promise<RunAnswer> {
    return new Promise((resolve, reject) => this.send({ type: 'run', id: this.nextId++, ...request }, { kind: 'run', resolve, reject }));
  }

  /** Explore; `cancel()` stops after the current schedule (the promise still resolves, with fewer runs). */
  explore(
    request: Omit<ExploreRequest, 'type' | 'id'>,
    onProgress?: (p: ExploreProgress) => void,
  ): { result: Promise<ExploreResult>; cancel(): void } {
    const id = this.nextId++;
    const result = new Promise<ExploreResult>((resolve, reject) =>
      this.send({ type: 'explore', id, ...request }, { kind: 'explore', resolve, reject, onProgress }),
    );
    return { result, cancel: () => this.cancel(id) };
  }

  /** Run one share of an exploration (./explore-pool.ts); `cancel()` stops it after the current schedule. */
  exploreSeeds(request: Omit<ExploreSeedsRequest, 'type' | 'id'>): { result: Promise<ScheduleSummary[]>; cancel(): void } {
    const id = this.nextId++;
    const result = new Promise<ScheduleSummary[]>((resolve, reject) => this.send({ type: 'explore-seeds', id, ...request }, { kind: 'seeds', resolve, reject }));
    return { result, cancel: () => this.cancel(id) };
  }

  /** Count an exploration's summaries and shrink its first violation here. */
  finishExplore(request: Omit<ExploreFinishRequest, 'type' | 'id'>): Promise<ExploreResult> {
    return new Promise((resolve, reject) => this.send({ type: 'explore-finish', id: this.nextId++, ...request }, { kind: 'explore', resolve, reject }));
  }

  /** Warm the worker up for a lesson (see WarmRequest); any later request stops it. */
  warm(scenario: string, codes: string[], runs: number): Promise<{ runs: number; ms: number }> {
    return new Promise((resolve, reject) => this.send({ type: 'warm', id: this.nextId++, scenario, codes, runs }, { kind: 'warm', resolve, reject }));
  }

  /** Stop a warm-up at its next schedule: any request does, and a cancel of no job is the lightest. */
  stopWarmUp(): void {
    if ([...this.jobs.values()].some((j) => j.kind === 'warm')) this.cancel(0);
  }

  /** Ask the worker to stop job `id` after its current schedule (it jumps the worker's queue). */
  private cancel(id: number): void {
    this.worker?.postMessage({ type: 'cancel', id } satisfies WorkerRequest);
  }

  dispose(): void {
    this.disposed = true;
    this.worker?.terminate();
    this.worker = null;
    this.closePort();
    this.failAll(new SqlError({ message: 'The database worker was stopped.' }));
  }
}

const TAB_CLIENT = Symbol.for('effectively-once.tab-database');

/**
 * The tab's one database worker, created on first call and kept for the life of the page (the
 * root layout never unmounts). Calling this as early as possible starts PGlite's boot early: the
 * provider's module does so as soon as it is evaluated, before React hydrates. Kept on globalThis
 * so that a module reload in development finds the running worker instead of starting another.
 */
export function tabWorkerClient(): WorkerClient {
  const holder = globalThis as typeof globalThis & { [TAB_CLIENT]?: WorkerClient };
  return (holder[TAB_CLIENT] ??= new WorkerClient());
}
