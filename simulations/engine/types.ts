/**
 * The vocabulary of the engine: what a process may touch (`Env`), faults as data, trace events,
 * scenarios and run results. Types only, so the lab, the CLI and learner code share one contract.
 */
import type { Db } from '../../lib/db';

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

/** Options a provider call may carry. */
export interface CallOptions {
  /** The provider returns the original result for a key it has seen (within its retention). */
  idempotencyKey?: string;
}

/** The receipt e-mail a worker asks the e-mail provider to send. */
export interface EmailRequest {
  to: string;
  orderId: number;
  template?: string;
}

/** What the e-mail provider answers. */
export interface EmailResult {
  emailId: string;
  /** True when the provider recognised the idempotency key and sent nothing new. */
  replayed: boolean;
}

/** A charge request to the payment provider. */
export interface ChargeRequest {
  orderId: number;
  amountCents: number;
  customer: string;
}

/** What the payment provider answers. */
export interface ChargeResult {
  chargeId: string;
  amountCents: number;
  replayed: boolean;
}

/**
 * One item for the metered transformation API (like APIVerve's POST endpoints): HMAC-SHA256 of
 * `input` under `secret`, or an HTML page rendered to a PDF. A transformation creates nothing;
 * every item that succeeds bills one credit.
 */
export interface TransformRequest {
  kind: 'hmac' | 'html-to-pdf';
  input: string;
  /** The HMAC secret (for kind 'hmac'). */
  secret?: string;
}

/** What the transformation API answers for one item. */
export type TransformResult =
  | { ok: true; output: string; creditsLeft: number }
  | {
      ok: false;
      /** 429: the rate window is full. 402: out of credits. Either way the item was not billed. */
      code: 429 | 402;
      error: string;
      /** When trying again can succeed; null when no more credits are coming. */
      retryAfterMs: number | null;
    };

/** A validation lookup (billed one credit). Its answer may move over time. */
export interface LookupRequest {
  kind: 'email-deliverability';
  value: string;
}

/** What the lookup answered, and when. */
export interface LookupResult {
  value: string;
  verdict: 'deliverable' | 'risky' | 'undeliverable';
  /** Simulated ms since the run started, when the provider looked. */
  checkedAtMs: number;
}

/** Everything a process (the learner's code included) may reach. Every call is a step. */
export interface Env {
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
  readonly email: {
    send(request: EmailRequest, options?: CallOptions): Promise<EmailResult>;
  };
  readonly payments: {
    charge(request: ChargeRequest, options?: CallOptions): Promise<ChargeResult>;
  };
  /** The metered transformation API: no idempotency key, one credit per successful item. */
  readonly transform: {
    /** Transform one item. */
    call(request: TransformRequest): Promise<TransformResult>;
    /**
     * Transform several items in one request. Results come back in the order sent, one per item;
     * items the provider did not reach before its deadline get no result (the array is shorter).
     */
    batch(items: TransformRequest[]): Promise<TransformResult[]>;
  };
  /** A metered validation lookup: one credit per call. */
  readonly lookup: {
    check(request: LookupRequest): Promise<LookupResult>;
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

/** The provider calls faults can name. */
export type CallKind = 'email.send' | 'payments.charge' | 'transform.call' | 'transform.batch' | 'lookup.check';

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
   * `atStep`, not before that many steps have run (the lab's "redeliver now").
   */
  | { kind: 'duplicate-delivery'; message: string; atStep?: number }
  /** The `nth` call of `call` answers after `ms` instead of its usual latency. */
  | { kind: 'slow-response'; call: CallKind; nth?: number; ms: number };

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
}
