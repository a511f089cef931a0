/**
 * What a scenario is (lessons are data), and the pieces scenarios share: the worker harness that
 * receives, hands the message to the learner's handler and acks, and the invariants that read the
 * provider ledger, the queue and the final tables. Checkers only observe; they never steer a run.
 */
import { exportedFunction, learnerLocation } from '../../learner/compile';
import type { Prediction } from './predictions';
import type { MessageSpec, ProcessSpec, RunOutcome, WorldSpec } from '../../engine/scheduler';
import type { SimDatabase } from '../../db/port';
import { formatSimMoment, formatSimTime } from '../../engine/sim-time';
import { transactionBoundary } from '../../db/sql-words';
import { isConflict, isFailedStatement } from '../../engine/statement-failure';
import type { Delivery, Env, Fault, InvariantResult, ReceiptMessage, TraceEvent } from '../../engine/types';

/** One version of the learner's code. */
export interface Variant {
  /** Shown on the switch: "Starter", "Solution". */
  label: string;
  /** TypeScript source, importing only from 'effectively-once'. */
  code: string;
  /** What this version does, and why it breaks or holds. */
  explanation: string;
}

/** What a checker sees after a run. */
interface CheckContext {
  outcome: RunOutcome;
  db: SimDatabase;
  messages: readonly MessageSpec[];
  /** Values the world recorded for checkers (e.g. what checkout returned). */
  observed: Record<string, unknown>;
}

/** A property every correct solution keeps, whatever the fault plan. */
export interface Invariant {
  id: string;
  title: string;
  check(ctx: CheckContext): Promise<Omit<InvariantResult, 'id' | 'title'>> | Omit<InvariantResult, 'id' | 'title'>;
}

/** Errors the learner's code threw during a run, with its line. */
export interface CodeError {
  process: string;
  message: string;
  /** Set when nothing was thrown: the code returned something its caller cannot act on. */
  returned?: true;
  /**
   * Set when the code failed rather than gave up (`isCodeFailure`): a JavaScript error such as a
   * TypeError, a statement the database rejected as wrong, an answer its caller cannot use. A run
   * with one is never clean. A throw of the code's own Error ("being charged elsewhere, retry
   * later"), a provider's error passed on, or a lost race the database reported is how code leaves
   * work for a retry, which right fixes do too: shown, but not a failure.
   */
  failure?: true;
  line?: number;
  column?: number;
  /**
   * The index of the first trace event at or after the error (stamped by runScenario): a view
   * replaying the run shows the error once its playhead gets there, not before.
   */
  event?: number;
}

/** What a world built for one run gives back besides its spec. */
export interface BuiltWorld {
  spec: WorldSpec;
  observed: Record<string, unknown>;
  codeErrors: CodeError[];
}

/** What a run tells the world it builds: its seed. */
export interface WorldVariation {
  seed: number;
}

/** A scenario: the world, the code variants, the demonstration fault plan, the invariants. */
export interface Scenario {
  id: string;
  title: string;
  /** The learner's module must export this function. */
  entry: string;
  /** The lesson's context, in a few short paragraphs. */
  brief: string[];
  variants: { starter: Variant; solution: Variant };
  /**
   * Build the world around a loaded learner module. A world may differ by seed (the same seed
   * always builds the same world): Explore varies what a key must tell apart, not only the faults.
   */
  build(mod: Record<string, unknown>, variation?: WorldVariation): BuiltWorld;
  /** The schedule that shows the bug: a seed and a fault plan. */
  demo: { seed: number; faults: Fault[]; story: string };
  /** Faults a correct design must survive; the explorer draws plans from these. */
  faultMenu: Fault[];
  /** Most faults one explored plan may hold. */
  maxFaults: number;
  invariants: Invariant[];
  /** Tables the inspector shows, in order. */
  tables: string[];
  /** Processes in swimlane order. */
  actors: string[];
  /** Asked before the first run of the demonstration, and answered by each run. */
  prediction?: Prediction;
}

/** Worker restarts: a crashed worker comes back after 5 simulated seconds, at most 3 times. */
export const WORKER_RESTART = { maxRestarts: 3, restartDelayMs: 5_000 };

/**
 * What a worker does with its handler's answer: resolve true to ack the message; false leaves it
 * for redelivery (having said why with `env.log`). The default acks on 'ack'.
 */
type AnswerHandler = (answer: unknown, delivery: Delivery, env: Env) => Promise<boolean> | boolean;

const ackOnAck: AnswerHandler = (answer, delivery, env) => {
  if (answer === 'ack') return true;
  // Not "left for redelivery": another consumer may already have acknowledged this message.
  env.log(`handler answered ${JSON.stringify(answer) ?? 'undefined'}, not 'ack': this delivery of ${delivery.messageId} is not acknowledged`);
  return false;
};

/**
 * `spec`, whose first incarnation begins `ms` into the run after saying `why` (a restart begins at
 * once). Worlds of some seeds start their work late, so that a retry or a redelivery falls on the
 * other side of a minute or a midnight.
 */
/** From the run's start (09:00 UTC) to 23:59:55 UTC the same day: five seconds before the date turns. */
export const UTC_LATE_EVENING_MS = (14 * 3600 + 59 * 60 + 55) * 1000;
/** From the run's start to 14:59:55 UTC, 23:59:55 in Tokyo (UTC+9). */
export const TOKYO_LATE_EVENING_MS = (5 * 3600 + 59 * 60 + 55) * 1000;
/** From the run's start to 23:59:55 in New York (UTC−5 in January), 04:59:55 UTC the next day. */
export const NEW_YORK_LATE_EVENING_MS = (19 * 3600 + 59 * 60 + 55) * 1000;

export function startsLate(spec: ProcessSpec, ms: number, why: string): ProcessSpec {
  let started = false;
  return {
    ...spec,
    async main(env) {
      if (!started) {
        started = true;
        env.log(why);
        await env.sleep(ms);
      }
      return spec.main(env);
    },
  };
}

/**
 * The visibility timeout of a queue configured for slow work, longer than the solutions' 60 s
 * lease: a dead worker's claim has run out by the time its message comes back, so only a takeover
 * of the expired claim gets the work done.
 */
export const SLOW_VISIBILITY_TIMEOUT_MS = 90_000;

/** Whether a run with `seed` has a queue that waits 90 s before a redelivery: seeds 3, 6, 9, … (in the lessons that say so). */
export function slowRedeliveryOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 3 === 0;
}

/**
 * Whether a run with `seed` gives a world's second purchase the first one's price (or, where a
 * lesson says so, brings a redelivery back early): seeds 2, 6, 10, ….
 */
export function samePriceOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 4 === 2;
}

/** Whether a run with `seed` holds the customer's second order: even seeds. */
export function secondOrderOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 2 === 0;
}

/**
 * Whether a run with `seed` puts work near a boundary (a minute, a midnight, a zone's date) or on a
 * drifting clock: seeds 3, 7, 11, … (the lessons that vary so demonstrate on seed 1).
 */
export function nearBoundaryOn(seed: number | undefined): boolean {
  return seed !== undefined && seed % 4 === 3;
}

/** Whether `seed` is one of 5, 9, 13, … (1 mod 4 but the demonstrations' seed 1), where the lessons that say so vary their world. */
export function fourthSeedOn(seed: number | undefined): boolean {
  return seed !== undefined && seed > 1 && seed % 4 === 1;
}

/**
 * A queue worker: receive, let the learner's handler decide, ack when `onAnswer` says so (by
 * default on 'ack'). A handler that throws leaves the message unacked, so the queue redelivers it.
 */
export function workerProcess(
  id: string,
  handler: (msg: never, env: Env) => Promise<unknown>,
  codeErrors: CodeError[],
  /** Turns a queued body into what the handler receives (a published event into a receipt request); it may read the delivery. */
  toMessage: (body: unknown, delivery: Delivery) => unknown = (body) => body,
  /** Acts on the handler's answer and decides whether to ack. */
  onAnswer: AnswerHandler = ackOnAck,
): ProcessSpec {
  return {
    id,
    restart: WORKER_RESTART,
    async main(env) {
      for (;;) {
        const delivery = await env.queue.receive();
        if (!delivery) return;
        let answer: unknown;
        try {
          answer = await handler(toMessage(delivery.body, delivery) as never, env);
        } catch (err) {
          const { what, loc } = caughtThrow(err);
          codeErrors.push(thrownError(id, err));
          env.log(`handler threw ${what}${loc ? ` (line ${loc.line})` : ''}; message ${delivery.messageId} stays unacked`);
          continue;
        }
        if (await onAnswer(answer, delivery, env)) await env.queue.ack(delivery);
      }
    },
  };
}

/**
 * What a handler threw, as the trace and the problems list say it: "TypeError: x is undefined" for
 * an Error; for anything else (`throw 'already handled'`) the value and a hint, since only an Error
 * carries the line it was thrown from.
 */
function thrownText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  const shown = typeof err === 'string' ? JSON.stringify(err) : (JSON.stringify(err) ?? String(err));
  return `${shown} (not an Error, so no line: throw new Error(…) to get one)`;
}

/**
 * A throw caught around a process's call into code: `what` names it for the run's problems
 * (thrownText), `said` is what it says on its own for a log line, `loc` the learner's line when it
 * is an Error from their code, and `fromLearner` whether it is the learner's to see: it was thrown
 * in their code, it is not an Error (lib and the providers always throw Errors), or it is the
 * failure of a statement issued while `throughLearner` code was running. The last is decided by
 * the error's identity (statement-failure.ts), never by its stack, so an exploration (which keeps
 * no call sites) counts exactly what a traced run counts.
 */
export function caughtThrow(err: unknown, throughLearner = true): { what: string; said: string; loc?: { line: number; column: number }; fromLearner: boolean } {
  if (err instanceof Error) {
    const loc = learnerLocation(err);
    return { what: thrownText(err), said: err.message, ...(loc ? { loc } : {}), fromLearner: loc !== null || (throughLearner && isFailedStatement(err)) };
  }
  const said = typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
  return { what: thrownText(err), said, fromLearner: true };
}

/** Errors JavaScript raises when code is wrong, and the sandbox's and loader's own. */
const FAILURE_NAMES = new Set(['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError', 'EvalError', 'URIError', 'SandboxError', 'LearnerCodeError']);

/**
 * Whether a thrown value means the code failed (see CodeError.failure): a JavaScript error of the
 * kinds above, or a failed statement other than a lost race (`isConflict`). Judged by name, since
 * an error may come from another realm.
 */
export function isCodeFailure(err: unknown): boolean {
  if (isFailedStatement(err)) return !isConflict(err);
  return err instanceof Object && FAILURE_NAMES.has(String((err as { name?: unknown }).name));
}

/** The CodeError a process records for `err`. */
export function thrownError(process: string, err: unknown): CodeError {
  const { what, loc } = caughtThrow(err);
  return { process, message: what, ...loc, ...(isCodeFailure(err) ? { failure: true as const } : {}) };
}

/** The CodeError a process records for `err`, or null when it is not the learner's to see (see caughtThrow). */
export function codeErrorOf(process: string, err: unknown, throughLearner = true): CodeError | null {
  return caughtThrow(err, throughLearner).fromLearner ? thrownError(process, err) : null;
}

/** The learner's handler, checked to be exported. */
export function handlerOf(mod: Record<string, unknown>, name: string) {
  return exportedFunction<(msg: never, env: Env) => Promise<unknown>>(mod, name);
}

/** Order ids of the receipt messages in a world. */
function ordersOf(messages: readonly MessageSpec[]): number[] {
  return messages.map((m) => (m.body as ReceiptMessage).orderId);
}

export const atMostOneReceipt: Invariant = {
  id: 'at-most-one-receipt',
  title: 'At most one receipt per order',
  check({ outcome, messages }) {
    for (const orderId of ordersOf(messages)) {
      const sent = outcome.ledger.emails.filter((e) => e.orderId === orderId);
      if (sent.length > 1) {
        return {
          held: false,
          detail: `order ${orderId} got ${sent.length} receipts: ${sent.map((e) => `${e.emailId} by ${e.by} at ${formatSimMoment(e.atMs)}`).join(', ')}`,
          step: sent[1].step,
        };
      }
    }
    return { held: true, detail: `every order got at most one receipt (${outcome.ledger.emails.length} sent)` };
  },
};

export const everyOrderReceipted: Invariant = {
  id: 'every-order-receipted',
  title: 'Every order gets its receipt',
  check({ outcome, messages }) {
    const missing = ordersOf(messages).filter((id) => !outcome.ledger.emails.some((e) => e.orderId === id));
    return missing.length
      ? { held: false, detail: `no receipt was ever sent for order ${missing.join(', ')}` }
      : { held: true, detail: 'every order got a receipt' };
  },
};

/**
 * Who acknowledged each message, for the verdict: a delivery that failed is not acknowledged, yet
 * the message may be, by the worker that got it next; without the name the verdict reads as if it
 * contradicted the error shown above it. Empty when no ack is in the trace.
 */
function acknowledgedBy(trace: readonly TraceEvent[]): string {
  const by = new Map<string, string>();
  for (const e of trace) {
    const data = e.data as { messageId?: unknown; settled?: unknown } | undefined;
    if (e.type === 'ack' && typeof data?.messageId === 'string' && data.settled !== true && !by.has(data.messageId)) by.set(data.messageId, e.actor);
  }
  if (by.size === 0 || by.size > 4) return '';
  return `: ${[...by].map(([id, pid]) => `${id} by ${pid}`).join(', ')}`;
}

/** Why a message is not acknowledged, in words ({n}: its deliveries); keyed by the queue machine's state. */
const UNSETTLED: Record<string, string> = {
  ready: 'is still waiting in the queue, never acknowledged',
  inFlight: 'is still in flight: delivered ({n}×), never acknowledged',
  deadLettered: 'was dead-lettered after {n} deliveries',
};

/**
 * For a dead-lettered message: how many of its deliveries the handler answered "retry-later" (its
 * key claimed by someone else under a live lease). Each used up a delivery, which is how a lease
 * longer than the queue will keep redelivering runs the message out of deliveries.
 */
function backedOff(trace: readonly TraceEvent[], m: { id: string; state: string }): string {
  if (m.state !== 'deadLettered') return '';
  const mentions = new RegExp(`\\b${m.id.replace(/[^\w-]/g, '')}\\b`);
  const n = trace.filter((e) => e.type === 'log' && e.text.includes('answered "retry-later"') && mentions.test(e.text)).length;
  return n ? `, ${n} of them answered "retry-later" (its key claimed under a lease still running), each one using up a delivery` : '';
}

export const messagesSettled: Invariant = {
  id: 'messages-settled',
  title: 'Every message is acknowledged',
  check({ outcome }) {
    const open = outcome.queue.filter((m) => m.state !== 'acked');
    return open.length
      ? {
          held: false,
          detail: open.map((m) => `message ${m.id} ${UNSETTLED[m.state] ?? `is still ${m.state}`}`.replace('{n}', String(m.deliveries)) + backedOff(outcome.trace, m)).join('; '),
          step: outcome.trace.find((e) => e.type === 'dead-letter')?.i,
        }
      : { held: true, detail: `every message was acknowledged${acknowledgedBy(outcome.trace)}` };
  },
};

/** A transaction a process holds open at some point of a trace: its BEGIN and the SQL it ran since. */
interface OpenTransaction {
  begin: TraceEvent;
  /** The statements' events so far, in order. */
  events: TraceEvent[];
  /** The process's statements before this BEGIN, since it last started: what its session already holds (session-level locks). */
  before: readonly TraceEvent[];
}

/**
 * The first event of a trace that a process made while it held a transaction open (BEGIN …
 * COMMIT/ROLLBACK; a crash or the engine's rollback ends one too) and that `test` accepts, with
 * that transaction as it stood then; null when there is none. For checkers of what PGlite cannot
 * show: it runs one transaction at a time, so a race that PostgreSQL would allow between two open
 * transactions never happens in this tab.
 */
export function firstInTransaction(
  trace: readonly TraceEvent[],
  test: (e: TraceEvent, tx: OpenTransaction) => boolean,
): { e: TraceEvent; tx: OpenTransaction } | null {
  const open = new Map<string, OpenTransaction>();
  /** Each process's statements since it last started (a crash closes its session, and its locks with it). */
  const session = new Map<string, TraceEvent[]>();
  for (const e of trace) {
    // The engine's rollback events are a connection closed (a crash, release(err), the run's end).
    if (e.type === 'crash' || e.type === 'rollback' || e.type === 'restart') {
      open.delete(e.actor);
      session.delete(e.actor);
      continue;
    }
    const tx = open.get(e.actor);
    if (e.type === 'db') {
      const sql = String((e.data as { sql?: unknown } | undefined)?.sql ?? '');
      const boundary = transactionBoundary(sql);
      const history = session.get(e.actor) ?? [];
      session.set(e.actor, history);
      if (boundary === 'begin') {
        if (!tx) open.set(e.actor, { begin: e, events: [], before: [...history] });
        continue;
      }
      history.push(e);
      if (boundary === 'end') {
        open.delete(e.actor);
        continue;
      }
      if (tx) tx.events.push(e);
    }
    if (tx && test(e, tx)) return { e, tx };
  }
  return null;
}

/**
 * No e-mail goes out from inside an open database transaction. A transaction cannot take an
 * e-mail back, and it holds its connection (and any locks) for as long as the provider takes. In
 * this tab it also hides the race the claim exists for: PGlite runs one transaction at a time, so
 * BEGIN; SELECT; send; INSERT; COMMIT looks atomic here, while on PostgreSQL two workers' SELECTs
 * both find no row and both send (`npm run sim -- explore … --db` shows it).
 */
export const noEmailInsideTransaction: Invariant = {
  id: 'no-email-inside-transaction',
  title: 'No e-mail sent from inside a database transaction',
  check({ outcome, db }) {
    const found = firstInTransaction(outcome.trace, (e) => e.type === 'call' && !!e.call?.startsWith('email.'));
    if (!found) return { held: true, detail: 'every e-mail was sent outside any transaction' };
    const { e, tx } = found;
    const race =
      db.name === 'pglite'
        ? 'It also hid a race in this run: PGlite runs one transaction at a time, so no other worker could read until the COMMIT. On PostgreSQL a SELECT takes no lock: two workers would both find no row and both send. '
        : 'On PostgreSQL a SELECT in it takes no lock: two workers can both find no row and both send. ';
    return {
      held: false,
      detail:
        `${e.actor} called ${e.call} at ${formatSimTime(e.t)} inside the transaction it began at ${formatSimTime(tx.begin.t)}. ` +
        `A rollback cannot take an e-mail back, and the transaction stays open for as long as the provider takes. ${race}` +
        'Claim in one statement (INSERT … ON CONFLICT), and send outside the transaction.',
      step: e.i,
    };
  },
};

export const noStuckKeys: Invariant = {
  id: 'no-stuck-keys',
  title: 'No operation stays "running" forever',
  async check({ db }) {
    const rows = await db.inspect(`SELECT op_key, lease_until FROM operations WHERE state = 'running' ORDER BY op_key`);
    if (!rows.length) return { held: true, detail: 'no key is left running' };
    const forever = rows.filter((r) => !(r.lease_until instanceof Date) || !Number.isFinite(r.lease_until.getTime()));
    return {
      held: false,
      detail: `${rows.length} key${rows.length > 1 ? 's' : ''} left 'running'${forever.length ? ` with no lease to expire (lease_until = infinity)` : ''}: ${rows.map((r) => String(r.op_key).slice(0, 12) + '…').join(', ')}`,
    };
  },
};
