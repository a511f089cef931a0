/**
 * The messages between the page and the PGlite worker (components/db/pglite.worker.ts).
 *
 * The worker boots one PGlite instance (from the prebuilt data directory when it can), installs the
 * simulator's schema, runs a first real query and only then announces `ready`. Requests sent
 * before that wait for the boot; if the boot failed they are answered with the boot's error.
 */

import type { LabRun } from '@/simulations/run/lab-run';
import type { ExploreResult, ScheduleSummary } from '@/simulations/run/run';
import type { Fault } from '@/simulations/engine/types';

/** Page → worker. */
export type WorkerRequest = QueryRequest | RunRequest | ExploreRequest | ExploreSeedsRequest | ExploreFinishRequest | WarmRequest | CancelRequest;

/** Run the learner's code once in scenario `scenario` and answer with a LabRun (trace + table snapshots). */
export interface RunRequest {
  type: 'run';
  id: number;
  /** A scenario id from simulations/scenarios. */
  scenario: string;
  code: string;
  seed: number;
  /** Defaults to the scenario's demonstration plan. */
  faults?: Fault[];
  /** A recorded choice list: replays the run's schedule exactly (a prefix, when faults are added). */
  choices?: number[];
  /** A label for the result: "starter", "solution", "your code". */
  variant?: string;
}

/** Explore `runs` schedules of the learner's code; progress is streamed, then the result. */
export interface ExploreRequest {
  type: 'explore';
  id: number;
  scenario: string;
  code: string;
  runs: number;
  /** The label the results carry, as RunRequest.variant: "starter", "solution", "your code". */
  variant?: string;
  /** Most runs spent shrinking the first violation (run.ts's default when left out); 0: the first violation as it came. */
  shrinkBudget?: number;
}

/**
 * One worker's share of an exploration spread over several (./explore-pool.ts): run seeds
 * `firstSeed` … `firstSeed + count - 1` for their verdicts and answer with their summaries. A
 * cancel stops it after the current schedule (the answer then has fewer).
 */
export interface ExploreSeedsRequest {
  type: 'explore-seeds';
  id: number;
  scenario: string;
  code: string;
  variant?: string;
  firstSeed: number;
  count: number;
}

/**
 * Finish an exploration from the summaries of all its schedules, in seed order (their counts, and
 * the first violation shrunk in this worker), answered with `explore-result`.
 */
export interface ExploreFinishRequest {
  type: 'explore-finish';
  id: number;
  scenario: string;
  code: string;
  variant?: string;
  summaries: ScheduleSummary[];
  /** The page's time from the first schedule asked to the last summary, for the rate. */
  elapsedMs: number;
  /** As ExploreRequest.shrinkBudget. */
  shrinkBudget?: number;
}

/**
 * Warm the worker up for a lesson while the learner reads its brief: explore each of `codes`
 * (the lesson's own starter and solution) for `runs` schedules and discard the results, so that
 * the learner's first exploration does not pay the JIT's first passes. Any later request stops it
 * at the next schedule. Every run starts from a full reset, so it cannot change a later verdict.
 */
export interface WarmRequest {
  type: 'warm';
  id: number;
  scenario: string;
  codes: string[];
  runs: number;
}

/** Stop exploration `id` after its current schedule. */
export interface CancelRequest {
  type: 'cancel';
  id: number;
}

/** Run one SQL script (one or more statements) and return the result of the last statement. */
export interface QueryRequest {
  type: 'query';
  /** Chosen by the page; echoed in the answer. */
  id: number;
  sql: string;
}

/** Worker → page. */
export type WorkerResponse =
  | ReadyMessage
  | BootErrorMessage
  | QueryResultMessage
  | QueryErrorMessage
  | RunResultMessage
  | ExploreProgressMessage
  | ExploreResultMessage
  | ExploreSeedsResultMessage
  | WarmResultMessage
  | StuckMessage
  | HeartbeatMessage;

/** A promise the learner's code rejected without anyone handling it, seen during a run. */
export interface UnhandledRejection {
  message: string;
  /** The learner's line, when the error's stack passed through the learner's code. */
  line?: number;
}

/** The answer to a `run` request. */
export interface RunResultMessage {
  type: 'run-result';
  id: number;
  run: LabRun;
  /** Rejections nobody handled while the run was going on (they cannot fail the run). */
  unhandled: UnhandledRejection[];
  /** True when trace events' `data` could not be cloned and were left out. */
  strippedData?: boolean;
}

/** How far an exploration has got; sent at most every ~100 ms. */
export interface ExploreProgressMessage {
  type: 'explore-progress';
  id: number;
  done: number;
  total: number;
  schedulesPerSecond: number | null;
}

/** The answer to an `explore` request. */
export interface ExploreResultMessage {
  type: 'explore-result';
  id: number;
  result: ExploreResult;
}

/** The answer to an `explore-seeds` request: one summary per schedule run, in seed order. */
export interface ExploreSeedsResultMessage {
  type: 'explore-seeds-result';
  id: number;
  summaries: ScheduleSummary[];
}

/** The answer to a `warm` request: how many schedules it ran before it finished or was stopped. */
export interface WarmResultMessage {
  type: 'warm-result';
  id: number;
  runs: number;
  ms: number;
}

/**
 * Sent every ~250 ms while the worker is busy with a run or an exploration, from a task of its own:
 * while it keeps coming, the worker's event loop is turning. Silence means learner code is stuck
 * in a synchronous loop the loop guard could not stop (the page's watchdog ends the worker).
 */
export interface HeartbeatMessage {
  type: 'heartbeat';
}


/**
 * The answer to a run, an exploration or a share of one whose learner code held the worker without
 * yielding: the loop guard (simulations/learner/loop-guard.ts) stopped it, and the database is
 * still up. Code stuck inside one native call never gets here: the page's watchdog ends the worker.
 */
export interface StuckMessage {
  type: 'stuck';
  id: number;
  /** How long the code had held the worker when it was stopped. */
  heldMs: number;
}

/** The database booted and answered its first query. */
export interface ReadyMessage {
  type: 'ready';
  /** `SELECT version()`, e.g. "PostgreSQL 18.1 on wasm32-unknown-emscripten, …". */
  version: string;
  /** Milliseconds from the worker starting to the first query's answer. */
  bootMs: number;
  /** `SELECT count(*) FROM operations` after the schema was installed. */
  operations: number;
  /** Whether the database came from the prebuilt data directory (false: initdb ran in the tab). */
  prebuilt: boolean;
  /** The worker's `performance.timeOrigin`, to place its milestones on the page's clock. */
  timeOrigin: number;
  /** Where the boot time went, in milliseconds since the worker started. */
  timings: BootTimings;
  /**
   * Every later message from the worker comes on this port, and the page stops listening to the
   * worker's global channel, which the learner's code can also post on.
   */
  port?: MessagePort;
}

/** Milestones of the boot, each in milliseconds since the worker started (its performance.now()). */
export interface BootTimings {
  /** The worker's first (small) script ran and started the downloads. */
  entry: number;
  /** PGlite and the engine have loaded (./worker-main.ts). */
  scriptLoaded: number;
  /** PGlite's WebAssembly module downloaded and compiled. */
  wasmCompiled: number;
  /** Who compiled it: the page's HTML (then posted to the worker) or the worker itself. */
  wasmCompiledBy?: 'page' | 'worker';
  /** PGlite's file-system bundle downloaded. */
  fsBundleLoaded: number;
  /** The prebuilt data directory downloaded (and inflated). */
  dataDirLoaded: number;
  /** PGlite.create() resolved: instantiated, files in place, the server started (initdb first, when not prebuilt). */
  pgliteCreated: number;
  /** The virtual clock and the lesson's schema are installed. */
  schemaInstalled: number;
  /** The first query answered. */
  firstQuery: number;
}

/** The database failed to boot; no query will ever succeed in this worker. */
export interface BootErrorMessage {
  type: 'error';
  id?: undefined;
  message: string;
}

/** One column of a result, in the order the statement returned them. */
export interface ResultField {
  name: string;
  /** PostgreSQL type OID. */
  dataTypeID: number;
}

/**
 * The answer to a `query` request: the last statement's columns and rows. Rows are arrays aligned
 * with `fields`, so two columns of the same name (a join's two `id`s) both survive.
 */
export interface QueryResultMessage {
  type: 'result';
  id: number;
  fields: ResultField[];
  rows: unknown[][];
  /** The command tag of the last statement, e.g. "SELECT", "INSERT". */
  command?: string;
  /** Rows returned or changed by the last statement. */
  rowCount?: number;
  /** How many statements the script ran. */
  statements: number;
  /** Milliseconds the script took inside the worker. */
  durationMs: number;
}

/** A query failed: PostgreSQL's own error, with the fields it reports (also: a run or exploration could not start). */
export interface QueryErrorMessage {
  type: 'error';
  id: number;
  message: string;
  /** SQLSTATE, e.g. "42601" for a syntax error. */
  code?: string;
  detail?: string;
  hint?: string;
  /** 1-based character offset into the SQL where the error was found. */
  position?: number;
}

/** What `query()` resolves with. */
export type QueryResult = Omit<QueryResultMessage, 'type' | 'id'>;

/** What `query()` rejects with: an Error that carries PostgreSQL's fields. */
export class SqlError extends Error {
  readonly code?: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly position?: number;

  constructor(info: Omit<QueryErrorMessage, 'type' | 'id'>) {
    super(info.message);
    this.name = 'SqlError';
    this.code = info.code;
    this.detail = info.detail;
    this.hint = info.hint;
    this.position = info.position;
  }
}
