/**
 * The vocabulary of the engine: what a process may touch (`Env`), faults as data, trace events,
 * scenarios and run results. Types only, so the lab, the CLI and learner code share one contract.
 */
import type { Db } from '../../lib/db';
import type { CallKind, ProviderApis } from '../providers/registry';

/** A message as a worker receives it. */
export interface Delivery<T = unknown> {
  /** The message's id in the queue (the same for every redelivery). */
  messageId: string;
  /** Which delivery of the message this is: 1 for the first. */
  attempt: number;
  body: T;
}

/** The body of a receipt message: send order `orderId`'s receipt to `customer`. */
export interface ReceiptMessage {
  orderId: number;
  customer: string;
}

/** An order at checkout. */
export interface CheckoutOrder {
  id: number;
  customerId: string;
  totalCents: number;
}

export type { CallKind, CallOptions } from '../providers/registry';
export type { ChargeRequest, ChargeResult, EmailRequest, EmailResult, LookupRequest, LookupResult, TransformRequest, TransformResult } from '../providers/index';

/** Everything a process (the learner's code included) may reach. Every call is a step. */
export interface Env extends ProviderApis {
  /** This process's name, e.g. `worker-1`. */
  readonly process: string;
  /** Its own logical database connection. */
  readonly db: Db;
  readonly queue: {
    /** The next message, waiting while messages are in flight; null once every message is settled. */
    receive(): Promise<Delivery | null>;
    /** Acknowledge: the queue forgets the message. */
    ack(delivery: Delivery): Promise<void>;
    /** Publish a new message (to topic `topic`). */
    publish(topic: string, body: unknown): Promise<void>;
  };
  readonly clock: { now(): number };
  /** Wait `ms` simulated milliseconds. */
  sleep(ms: number): Promise<void>;
  readonly random: {
    /** A seeded UUID: the same run gives the same UUIDs. */
    uuid(): string;
    /** A seeded integer in [0, n). */
    int(n: number): number;
  };
  /** A line in the run's narration. */
  log(...args: unknown[]): void;
}

/** The step kinds faults can name. */
export type StepKind = 'db' | 'queue.receive' | 'queue.ack' | 'queue.publish' | CallKind | 'sleep';

/** Narrows an `after`/`before` crash to some database statements. */
export interface CrashSqlFilter {
  /**
   * Only with a `'db'` step kind: only statements whose text starts with this prefix count, and
   * `nth` counts among them (so `{ after: 'db', sql: 'INSERT INTO orders' }` lands after the order
   * row is written, inside a transaction or not). Case is ignored, leading whitespace is dropped and
   * every run of whitespace compares as one space, on both sides.
   */
  sql?: string;
}

/**
 * A fault. Faults are data: a plan is a list of them, drawn from the seed by the explorer, chosen
 * by a scenario as its demonstration, or injected by hand mid-run.
 */
export type Fault =
  /**
   * Kill `process` right after its `nth` step of kind `after` ran (the effect happened, the process
   * never learns). With `sql`, see {@link CrashSqlFilter}.
   */
  | ({ kind: 'crash'; process: string; after: StepKind; nth?: number } & CrashSqlFilter)
  /** Kill `process` just before its `nth` step of kind `before` would run. With `sql`, see {@link CrashSqlFilter}. */
  | ({ kind: 'crash'; process: string; before: StepKind; nth?: number } & CrashSqlFilter)
  /** Kill `process` at global step `atStep` (the lab's "crash now"). */
  | { kind: 'crash'; process: string; atStep: number }
  /** The provider applies the `nth` call of `call`, but the response never arrives: the caller times out. */
  | { kind: 'lose-response'; call: CallKind; nth?: number }
  /** The `nth` call of `call` never reaches the provider: the caller times out, nothing happened. */
  | { kind: 'lose-request'; call: CallKind; nth?: number }
  /**
   * The queue hands message `message` to a second consumer while the first still holds it. With
   * `atStep`, not before that many steps have run (the lab's "redeliver now"). With `afterMs`, not
   * before that many simulated ms have passed since the message's first delivery: then a message
   * already acknowledged comes back too, as a copy the queue failed to delete does (SQS standard
   * queues say so), and must be acknowledged again.
   */
  | { kind: 'duplicate-delivery'; message: string; atStep?: number; afterMs?: number }
  /** The `nth` call of `call` answers after `ms` instead of its usual latency. */
  | { kind: 'slow-response'; call: CallKind; nth?: number; ms: number }
  /**
   * The `nth` call of `call`, a batch, has its item at index `item` (from 0) refused with 429 by the
   * provider's rate limiter, unbilled, as a burst from elsewhere on the account would: a failure in
   * the middle of a batch, where the provider's own limits fail only its last items.
   */
  | { kind: 'refuse-item'; call: CallKind; nth?: number; item: number }
  /**
   * The `nth` statement `process` sends (BEGIN, COMMIT, ROLLBACK and savepoint commands not
   * counted; with `sql`, only statements that start with it, compared as {@link CrashSqlFilter}
   * says) fails with SQLSTATE 40P01, as PostgreSQL fails one of two transactions that wait for
   * each other: the statement does nothing, and a transaction around it is aborted, so its COMMIT
   * rolls back. Counted over the whole run, across restarts.
   */
  | ({ kind: 'fail-statement'; process: string; nth?: number } & CrashSqlFilter);

/** One entry of the trace: the single stream every view and checker reads. */
export interface TraceEvent {
  /** Position in the trace. */
  i: number;
  /** Simulated time, ms since the run started. */
  t: number;
  /** Steps executed when this event happened (a fault `{ atStep }` at this number lands here). */
  step: number;
  /** Who acted: a process, `queue`, `postgres`, `email`, `payments`, `engine`. */
  actor: string;
  /** What happened, machine-readable. */
  type:
    | 'start'
    | 'finish'
    | 'error'
    | 'db'
    | 'db-error'
    | 'receive'
    | 'ack'
    | 'publish'
    | 'redeliver'
    | 'dead-letter'
    | 'call'
    | 'reply'
    | 'timeout'
    | 'sleep'
    | 'wake'
    | 'crash'
    | 'restart'
    | 'rollback'
    | 'log';
  /** One human sentence: the narration. */
  text: string;
  /** The other end of an arrow (provider, queue, postgres), for the timeline. */
  target?: string;
  /** Set when the event is a fault being applied. */
  fault?: Fault['kind'];
  /** On a `call` event: which call it was (a provider can take more than one kind). */
  call?: CallKind;
  /** Structured detail (SQL text, params, rows, request and response). */
  data?: unknown;
}

/** The outcome of one invariant. */
export interface InvariantResult {
  id: string;
  title: string;
  held: boolean;
  /** What was seen: evidence when broken, a summary when held. */
  detail: string;
  /** Trace index where it broke, when it can be pinned to a step. */
  step?: number;
  /**
   * Set on a broken invariant when all it saw broken crossed the gap the lesson's design leaves
   * open and its brief names (a crash between an effect and the statement that records it, taken
   * over after the provider forgot the key): the run shows the repeat, and Explore does not count
   * it against the code.
   */
  beyondKeys?: true;
}
