/**
 * What a run is made of and what it gives back: the world's processes and messages, the options of
 * one run, and its outcome, which the checkers and every view read. Types only.
 */
import type { Ledger, ProviderOptions } from '../providers/registry';
import type { ContentionOptions } from './contention';
import type { Env, Fault, TraceEvent } from './types';

/** A process of the world. */
export interface ProcessSpec {
  id: string;
  /** The process body. It reaches the world only through `env`. */
  main(env: Env): Promise<void>;
  /** Restart after a crash (workers). */
  restart?: { maxRestarts: number; restartDelayMs: number };
  /**
   * Publishes to the queue (a shop, a relay). While a producer is alive, or about to restart,
   * an empty queue makes `receive` wait instead of answering "no messages left".
   */
  producer?: boolean;
}

/** A message waiting in the queue when the run starts. */
export interface MessageSpec {
  id: string;
  body: unknown;
}

/** Everything about a world but the code and the faults. */
export interface WorldSpec {
  processes: ProcessSpec[];
  messages: MessageSpec[];
  /** How long a received, unacked message stays invisible before it is redelivered. */
  visibilityTimeoutMs: number;
  /**
   * How long the first delivery stays invisible, when that differs: a world whose consumers are
   * down from a crash until the next morning hands the message out again only then, and as usual after.
   */
  firstVisibilityTimeoutMs?: number;
  /** Deliveries after which a message is dead-lettered. */
  maxReceives: number;
  providers?: ProviderOptions;
  /** SQL run after the reset and before the first step: the rows the scenario starts with. */
  setupSql?: string;
  /** Simulated time after which the run stops, whatever is still pending. */
  horizonMs: number;
  /** Steps after which the run stops and says so (a runaway loop). */
  maxSteps?: number;
}

/** Options of one run. */
export interface RunOptions {
  seed: number;
  faults: readonly Fault[];
  /** Choices to replay: index into the enabled steps at each point with more than one. Beyond its end, 0. */
  choices?: readonly number[];
  /** Called with every trace event as it happens. */
  onEvent?: (event: TraceEvent) => void;
  /** Called after every executed step, before the next is chosen (the lab snapshots tables here). */
  afterStep?: (stepIndex: number) => Promise<void> | void;
  /**
   * Called when a crash is about to drop a connection with a transaction open, before the rollback:
   * the last moment its uncommitted changes can be seen (the lab snapshots tables here too).
   */
  beforeRollback?: (pid: string) => Promise<void> | void;
  /**
   * The run is kept only for its verdict (an exploration, a shrink): it leaves out what only a
   * person reads of it. `traceHash` is '' (the trace is not hashed), and a failed statement is
   * rethrown with the engine's stack instead of the learner's calling line (no call site is
   * captured per statement), so its narration names no line. Choices, steps, ledger, verdict and
   * every other event are the same as a full run's: nothing that decides a run reads either.
   * Together these were ~15–20 % of a schedule (npm run bench).
   */
  verdictOnly?: boolean;
  /** Contended answers: one to give (a probe run), and those found ignored (./contention.ts). */
  contention?: ContentionOptions;
  /** Checked after every step: true ends the run there (a probe run that has seen enough). */
  stopWhen?: () => boolean;
}

/** What a run produced; the checkers and every view read this. */
export interface RunOutcome {
  trace: TraceEvent[];
  traceHash: string;
  choices: number[];
  /** Steps executed. */
  steps: number;
  ledger: Ledger;
  /** Simulated ms from start to end. */
  durationMs: number;
  /** Why the run ended. */
  ending: 'finished' | 'horizon' | 'stuck' | 'step-limit';
  /** A sentence about the ending when it is not a plain finish. */
  endingDetail?: string;
  /** Errors thrown by process code that nothing caught, and processes that waited outside env. */
  processErrors: { process: string; message: string; stack?: string }[];
  /**
   * Transactions a process's code left open: it returned while its session was still inside one (a
   * BEGIN never met by COMMIT or ROLLBACK; on pg.Pool that client stays checked out, idle in
   * transaction, for good), or it released its client inside one (pg.Pool hands that connection,
   * transaction and all, to its next caller). `at`: where (the BEGIN, or the release), in traced runs.
   */
  leftOpen: { process: string; how: 'returned' | 'released'; at?: Error }[];
  /** Messages that never settled or were dead-lettered. */
  queue: { id: string; state: string; deliveries: number }[];
  /**
   * For each fault of the plan, in order, the trace event at which it took effect, or null when it
   * never did (its step never came, or its process was already down).
   */
  faultEvents: (number | null)[];
}
