/**
 * The deterministic scheduler. Processes are ordinary async functions; every effect they ask of
 * `env` becomes a pending step and the process waits. When every live process is blocked on a
 * step (quiescence), the scheduler picks one enabled step — from the seeded PRNG, or from a given
 * choice list — executes it against the real database or a simulated provider, and resolves it.
 * A run is therefore a pure function of (world, code, seed, faults); the choices it made are
 * recorded, and replaying them reproduces the run exactly.
 *
 * Faults tolerated by the engine itself: a process crashing at any step (its connection drops and
 * an open transaction rolls back; its messages stay unacked), lost and slow provider responses,
 * duplicate delivery. A process that awaits something outside `env` is stopped and reported.
 */
import { createActor, type ActorRefFrom } from 'xstate';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Db, DbClient, QueryResult } from '../../lib/db';
import { VirtualClock } from './clock';
import { messageMachine, workerMachine } from './machines';
import { sqlStartsWith } from './faults';
import { Prng } from './prng';
import { Providers, TimeoutError, type Ledger, type ProviderOptions } from '../providers/providers';
import { isParked, type SimDatabase } from '../db/pglite';
import { SIM_EPOCH_MS } from './sim-time';
import type { CallKind, Delivery, Env, Fault, StepKind, TraceEvent } from './types';
import { afterHostTick, hostTick } from './host-tick';
import { enterProcess } from '../learner/compile';
import { memoByText } from './text-memo';
import { onSimulatedClock, transactionControl } from '../db/sql-words';

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
  /** Messages that never settled or were dead-lettered. */
  queue: { id: string; state: string; deliveries: number }[];
  /**
   * For each fault of the plan, in order, the trace event at which it took effect, or null when it
   * never did (its step never came, or its process was already down).
   */
  faultEvents: (number | null)[];
}

type Resolver = { resolve(v: unknown): void; reject(e: unknown): void };
type DuplicateDelivery = Extract<Fault, { kind: 'duplicate-delivery' }>;

interface Step extends Resolver {
  seq: number;
  pid: string;
  incarnation: number;
  kind: StepKind | 'reply';
  label: string;
  /** A db step's statement, for crash faults narrowed by `sql`. */
  sql?: string;
  readyAt: number;
  enabled?: () => boolean;
  exec: () => Promise<unknown> | unknown;
}

/** Returned by a step's exec: do not resolve yet, register this follow-up step instead. */
class FollowUp {
  constructor(
    readonly readyAt: number,
    readonly label: string,
    readonly exec: () => unknown,
    readonly enabled?: () => boolean,
  ) {}
}

interface Proc {
  spec: ProcessSpec;
  incarnation: number;
  /** The running incarnation's env: which process is calling, for the learner module's memory. */
  env: Env | null;
  alive: boolean;
  /** Counts of executed steps by kind, for `crash after the nth X` faults. */
  counts: Map<string, number>;
  /** Counts of chosen steps by kind, for `crash before the nth X`. */
  beforeCounts: Map<string, number>;
  /** Per crash fault with `sql`: matching statements this incarnation ran (after) or was about to run (before). */
  sqlCounts: Map<Fault, number>;
  pending: number;
  notify: (() => void) | null;
  machine?: ActorRefFrom<typeof workerMachine>;
  restartPending: boolean;
}

/** A sleep's length as the trace says it: "500 ms", "30 s", "25 h", "21 h 30 min" (not "90000000 ms"). */
export function sleepText(ms: number): string {
  // Seconds from 1 s up, as the rest of the narration counts time ("at 49.6 s"), not "3000 ms".
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 3_600_000) return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${+(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`;
  // Rounded to the minute as a whole, so 14 h 59 min 40 s reads "15 h", not "14 h 60 min".
  const total = Math.round(ms / 60_000);
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
}

const DEFAULT_MAX_STEPS = 5_000;
/** Steps between host turns within one run (ordinary runs take 15–100 steps and never reach it). */
const HOST_TURN_EVERY_STEPS = 256;
/** Rounds to wait for a server to break a lock cycle before calling the run stuck. */
const MAX_STALL_ROUNDS = 20_000;

/** One run of a world. Create, `run()`, read the outcome. */
export class Engine {
  readonly clock = new VirtualClock(SIM_EPOCH_MS);
  private readonly prng: Prng;
  private readonly data: Prng;
  private readonly procs = new Map<string, Proc>();
  private readonly order: string[] = [];
  private pending: Step[] = [];
  private seq = 0;
  private stepsRun = 0;
  private readonly trace: TraceEvent[] = [];
  /** How many trace events there are so far: the index the next one will get. */
  get eventCount(): number {
    return this.trace.length;
  }
  /** The trace as hashed, one line per event; digested once when the run ends (the same digest as hashing line by line). */
  private readonly hashLines: string[] = [];
  private readonly choicesMade: number[] = [];
  private choiceCursor = 0;
  private stallRounds = 0;
  private readonly providers: Providers;
  private readonly messages = new Map<string, ActorRefFrom<typeof messageMachine>>();
  /** Per message, the duplicate-delivery faults still to apply. */
  private readonly duplicateFaults = new Map<string, DuplicateDelivery[]>();
  private readonly callCounts = new Map<CallKind, number>();
  private readonly processErrors: RunOutcome['processErrors'] = [];
  /**
   * The trace event each fault took effect at (see RunOutcome.faultEvents). A crash fault in it has
   * fired: each fires once, whatever the incarnation.
   */
  private readonly tookEffect = new Map<Fault, number>();

  constructor(
    private readonly world: WorldSpec,
    private readonly db: SimDatabase,
    private readonly options: RunOptions,
  ) {
    this.prng = new Prng(options.seed);
    // A second stream for data (UUIDs), so replaying a choice list draws the same UUIDs.
    this.data = new Prng((options.seed ^ 0x5bd1e995) | 0);
    this.providers = new Providers(world.providers ?? {});
    for (const f of options.faults) {
      if (f.kind === 'duplicate-delivery') this.duplicateFaults.set(f.message, [...(this.duplicateFaults.get(f.message) ?? []), f]);
    }
  }

  /** Simulated ms since the run began. */
  private elapsed(): number {
    return this.clock.now() - SIM_EPOCH_MS;
  }

  private emit(event: Omit<TraceEvent, 'i' | 't' | 'step'>): TraceEvent {
    const e: TraceEvent = { i: this.trace.length, t: this.elapsed(), step: this.stepsRun, ...event };
    this.trace.push(e);
    if (!this.options.verdictOnly) this.hashLines.push(`${e.i}|${e.t}|${e.actor}|${e.type}|${e.text}\n`);
    this.options.onEvent?.(e);
    return e;
  }

  async run(): Promise<RunOutcome> {
    if (this.world.setupSql) await this.db.exec(this.world.setupSql);
    for (const m of this.world.messages) this.addMessage(m.id, m.body);
    for (const spec of this.world.processes) {
      const proc: Proc = {
        spec,
        incarnation: 0,
        env: null,
        alive: false,
        counts: new Map(),
        beforeCounts: new Map(),
        sqlCounts: new Map(),
        pending: 0,
        notify: null,
        restartPending: false,
      };
      this.procs.set(spec.id, proc);
      this.order.push(spec.id);
    }
    for (const id of this.order) await this.startProcess(this.procs.get(id)!);

    const maxSteps = this.world.maxSteps ?? DEFAULT_MAX_STEPS;
    const horizon = SIM_EPOCH_MS + this.world.horizonMs;
    let ending: RunOutcome['ending'] = 'finished';
    let endingDetail: string | undefined;

    for (;;) {
      await this.applyStepFaults();
      if (this.db.settle) await this.db.settle();
      const now = this.clock.now();
      const enabled = this.pending.filter((s) => s.readyAt <= now && (!s.enabled || s.enabled()));
      if (enabled.length === 0) {
        const anyLive = [...this.procs.values()].some((p) => p.alive || p.restartPending);
        if (!anyLive) break;
        const next = this.nextTime();
        if (next === null && this.db.settle && this.stallRounds++ < MAX_STALL_ROUNDS) {
          // Statements parked on a lock: a real server resolves a deadlock by failing one of them.
          await hostTick();
          continue;
        }
        if (next === null) {
          ending = 'stuck';
          endingDetail = this.describeStuck();
          this.emit({ actor: 'engine', type: 'error', text: `Nothing can move: ${endingDetail}` });
          break;
        }
        if (next > horizon) {
          ending = 'horizon';
          endingDetail = `work was still pending when the run reached its ${Math.round(this.world.horizonMs / 1000)} s horizon`;
          this.clock.advanceTo(horizon);
          break;
        }
        this.clock.advanceTo(next);
        continue;
      }
      if (this.stepsRun >= maxSteps) {
        ending = 'step-limit';
        endingDetail = `${maxSteps} steps ran and a process was still working: it keeps going without end`;
        this.emit({ actor: 'engine', type: 'error', text: `Stopped: ${endingDetail}` });
        break;
      }
      this.stallRounds = 0;
      const step = enabled.length === 1 ? enabled[0] : enabled[this.choose(enabled.length)];
      await this.execute(step);
      if (this.options.afterStep) await this.options.afterStep(this.stepsRun - 1);
      // A run settles through microtasks only. A long one (a handler looping on `await env.db…`
      // until the step limit) lets the host's tasks in now and then: the browser worker's heartbeat,
      // without which the page's watchdog took it for a loop that never awaits. Host turns decide nothing.
      if (this.stepsRun % HOST_TURN_EVERY_STEPS === 0) await hostTick();
    }

    // No process runs any more: a late call into the learner's module (a stray promise of a
    // crashed incarnation) is no process's, and gets the load's own evaluation.
    enterProcess(null);
    for (const p of this.procs.values()) {
      if (this.db.inTransaction(p.spec.id) && (await this.db.drop(p.spec.id))) {
        this.emit({ actor: p.spec.id, type: 'rollback', target: 'postgres', text: `${p.spec.id} left a transaction open; it was rolled back` });
      }
    }
    const queue = [...this.messages.entries()].map(([id, actor]) => {
      const snap = actor.getSnapshot();
      return { id, state: String(snap.value), deliveries: snap.context.deliveries };
    });
    for (const actor of this.messages.values()) actor.stop();
    for (const p of this.procs.values()) p.machine?.stop();
    return {
      trace: this.trace,
      traceHash: this.options.verdictOnly ? '' : bytesToHex(sha256(utf8ToBytes(this.hashLines.join('')))),
      choices: this.choicesMade,
      steps: this.stepsRun,
      ledger: this.providers.ledger,
      durationMs: this.elapsed(),
      ending,
      endingDetail,
      processErrors: this.processErrors,
      queue,
      faultEvents: this.options.faults.map((f) => this.tookEffect.get(f) ?? null),
    };
  }

  private choose(n: number): number {
    const given = this.options.choices;
    let c: number;
    if (given) {
      c = this.choiceCursor < given.length ? Math.abs(given[this.choiceCursor] | 0) % n : 0;
    } else {
      c = this.prng.int(n);
    }
    this.choiceCursor++;
    this.choicesMade.push(c);
    return c;
  }

  private nextTime(): number | null {
    let next = this.clock.nextDeadline();
    const now = this.clock.now();
    for (const s of this.pending) {
      if (s.readyAt > now && (next === null || s.readyAt < next)) next = s.readyAt;
    }
    return next;
  }

  private describeStuck(): string {
    const waits = this.pending.map((s) => {
      const by = s.kind === 'db' ? this.db.blockedBy(s.pid) : null;
      return by ? `${s.pid} waits for ${by}'s transaction` : `${s.pid} waits on ${s.label}`;
    });
    return waits.length ? waits.join('; ') : 'no process has a step to take';
  }

  // ── processes ──────────────────────────────────────────────────────────

  private async startProcess(proc: Proc) {
    proc.alive = true;
    proc.incarnation++;
    proc.pending = 0;
    proc.counts = new Map();
    proc.beforeCounts = new Map();
    proc.sqlCounts = new Map();
    const incarnation = proc.incarnation;
    const env = this.makeEnv(proc, incarnation);
    proc.env = env;
    this.emit({ actor: proc.spec.id, type: proc.incarnation === 1 ? 'start' : 'restart', text: proc.incarnation === 1 ? `${proc.spec.id} starts` : `${proc.spec.id} restarts (run ${incarnation})` });
    // This incarnation runs now: its calls into the learner's module use its own evaluation of it.
    enterProcess(env);
    const done = (async () => proc.spec.main(env))();
    done.then(
      () => {
        if (proc.alive && proc.incarnation === incarnation) {
          proc.alive = false;
          this.emit({ actor: proc.spec.id, type: 'finish', text: `${proc.spec.id} finished` });
          proc.machine?.send({ type: 'STOP' });
        }
        this.wake(proc, incarnation);
      },
      (err: unknown) => {
        if (proc.alive && proc.incarnation === incarnation) {
          proc.alive = false;
          this.recordError(proc.spec.id, err);
          proc.machine?.send({ type: 'STOP' });
        }
        this.wake(proc, incarnation);
      },
    );
    await this.settle(proc, incarnation);
  }

  private restart(proc: Proc) {
    proc.restartPending = false;
    // Fired by a timer inside clock.advanceTo; the main loop awaits it before choosing a step.
    this.pendingStarts.push(this.startProcess(proc));
  }

  private pendingStarts: Promise<void>[] = [];

  private async drainStarts() {
    while (this.pendingStarts.length) await this.pendingStarts.shift();
  }

  private recordError(pid: string, err: unknown) {
    const e = err instanceof Error ? err : new Error(String(err));
    this.processErrors.push({ process: pid, message: e.message, stack: e.stack });
    this.emit({ actor: pid, type: 'error', text: `${pid} stopped with an uncaught error: ${e.message}`, data: { message: e.message, stack: e.stack } });
  }

  private wake(proc: Proc, incarnation: number) {
    if (proc.incarnation === incarnation && proc.notify) {
      const n = proc.notify;
      proc.notify = null;
      n();
    }
  }

  /**
   * Wait until `proc` has registered its next step or finished. If a host tick passes first, it is
   * awaiting something that is not an env step: stop it and say so.
   */
  private async settle(proc: Proc, incarnation: number) {
    if (!proc.alive || proc.incarnation !== incarnation || proc.pending > 0) return;
    let stalled = false;
    await new Promise<void>((resolve) => {
      const registered = () => {
        cancel();
        resolve();
      };
      const cancel = afterHostTick(() => {
        if (proc.notify === registered) {
          stalled = true;
          proc.notify = null;
          resolve();
        }
      });
      proc.notify = registered;
    });
    if (stalled && proc.alive && proc.incarnation === incarnation && proc.pending === 0) {
      proc.alive = false;
      const message = `${proc.spec.id} awaited something outside env (a host timer, network, or a promise that never settles); only env calls advance a simulation`;
      this.processErrors.push({ process: proc.spec.id, message });
      this.emit({ actor: proc.spec.id, type: 'error', text: message });
    }
  }

  private register(proc: Proc, incarnation: number, step: Omit<Step, 'seq' | 'pid' | 'incarnation' | 'resolve' | 'reject'>): Promise<unknown> {
    if (!proc.alive || proc.incarnation !== incarnation) {
      // A dead incarnation's stray call: it never resolves, as a crashed process never resumes.
      return new Promise(() => {});
    }
    return new Promise((resolve, reject) => {
      // Fields listed one by one: a spread of the step's closures is several times slower per step.
      this.pending.push({
        seq: this.seq++,
        pid: proc.spec.id,
        incarnation,
        kind: step.kind,
        label: step.label,
        sql: step.sql,
        readyAt: step.readyAt,
        enabled: step.enabled,
        exec: step.exec,
        resolve,
        reject,
      });
      proc.pending++;
      this.wake(proc, incarnation);
    });
  }

  private async execute(step: Step) {
    const at = this.pending.indexOf(step);
    if (at >= 0) this.pending.splice(at, 1);
    const proc = this.procs.get(step.pid)!;
    proc.pending--;
    if (step.kind !== 'reply') {
      const n = (proc.beforeCounts.get(step.kind) ?? 0) + 1;
      proc.beforeCounts.set(step.kind, n);
      const fault = this.options.faults.find(
        (f) => f.kind === 'crash' && 'before' in f && f.sql === undefined && f.process === step.pid && f.before === step.kind && (f.nth ?? 1) === n && !this.tookEffect.has(f),
      );
      if (fault) {
        this.stepsRun++;
        await this.crash(proc, `just before its ${ordinal(n)} ${step.kind} step (${step.label})`, fault);
        return;
      }
      const bySql = this.sqlCrash(proc, step, 'before');
      if (bySql) {
        this.stepsRun++;
        await this.crash(proc, `just before its ${bySql.when}`, bySql.fault);
        return;
      }
    }
    this.stepsRun++;
    let value: unknown;
    let failed = false;
    try {
      value = await step.exec();
    } catch (err) {
      value = err;
      failed = true;
    }
    if (value instanceof FollowUp) {
      const follow = value;
      this.pending.push({
        seq: this.seq++,
        pid: step.pid,
        incarnation: step.incarnation,
        kind: 'reply',
        label: follow.label,
        readyAt: follow.readyAt,
        enabled: follow.enabled,
        exec: follow.exec,
        resolve: step.resolve,
        reject: step.reject,
      });
      proc.pending++;
    }
    if (step.kind !== 'reply') {
      const n = (proc.counts.get(step.kind) ?? 0) + 1;
      proc.counts.set(step.kind, n);
      const fault = this.options.faults.find(
        (f) => f.kind === 'crash' && 'after' in f && f.sql === undefined && f.process === step.pid && f.after === step.kind && (f.nth ?? 1) === n && !this.tookEffect.has(f),
      );
      if (fault) {
        await this.crash(proc, `right after its ${ordinal(n)} ${step.kind} step (${step.label})`, fault);
        return;
      }
      const bySql = this.sqlCrash(proc, step, 'after');
      if (bySql) {
        await this.crash(proc, `right after its ${bySql.when}`, bySql.fault);
        return;
      }
    }
    if (value instanceof FollowUp) return;
    enterProcess(proc.env);
    if (failed) step.reject(value);
    else step.resolve(value);
    await this.settle(proc, step.incarnation);
  }

  /**
   * Count `step` for every unfired crash fault with `sql` it matches, and fire the first whose `nth`
   * it reaches. Kept apart from the per-kind counts so plans without `sql` run exactly as before.
   */
  private sqlCrash(proc: Proc, step: Step, side: 'after' | 'before'): { when: string; fault: Fault } | undefined {
    if (step.sql === undefined) return undefined;
    let hit: { when: string; fault: Fault } | undefined;
    for (const f of this.options.faults) {
      if (f.kind !== 'crash' || 'atStep' in f || f.sql === undefined || f.process !== step.pid || this.tookEffect.has(f)) continue;
      const at = side === 'after' ? ('after' in f ? f.after : undefined) : 'before' in f ? f.before : undefined;
      if (at !== step.kind || !sqlStartsWith(step.sql, f.sql)) continue;
      const n = (proc.sqlCounts.get(f) ?? 0) + 1;
      proc.sqlCounts.set(f, n);
      if (!hit && (f.nth ?? 1) === n) hit = { when: sqlCrashWhen(n, f.sql), fault: f };
    }
    return hit;
  }

  /**
   * Crash faults "at step N", once N steps have run: each kills its process the first moment it is
   * up while the step count is N, so also right after a restart at that count (a timer fired by
   * advanceTo), as "crash worker-1 now" at the event "worker-1 restarts" means. Each fires once: the
   * restart that follows its own crash is not killed again.
   */
  private async applyStepFaults() {
    // Timers fired by advanceTo may have restarted a worker: let it reach its first step before a
    // crash can land on it (a crash in the middle of its start would leave the start waiting).
    await this.drainStarts();
    for (const f of this.options.faults) {
      if (f.kind === 'crash' && 'atStep' in f && f.atStep === this.stepsRun && !this.tookEffect.has(f)) {
        const proc = this.procs.get(f.process);
        if (!proc?.alive) continue;
        await this.crash(proc, `at scheduler step ${f.atStep}`, f);
      }
    }
  }

  /** Kill a process for `fault` of the plan: it never resumes, its connection drops, its messages stay unacked. */
  private async crash(proc: Proc, when: string, fault: Fault) {
    if (!proc.alive) return;
    proc.alive = false;
    proc.notify = null;
    this.pending = this.pending.filter((s) => s.pid !== proc.spec.id);
    proc.pending = 0;
    const e = this.emit({ actor: proc.spec.id, type: 'crash', fault: 'crash', text: `${proc.spec.id} crashes ${when}` });
    this.tookEffect.set(fault, e.i);
    if (this.options.beforeRollback && this.db.inTransaction(proc.spec.id)) await this.options.beforeRollback(proc.spec.id);
    if (await this.db.drop(proc.spec.id)) {
      this.emit({ actor: proc.spec.id, type: 'rollback', target: 'postgres', text: `${proc.spec.id}'s connection dropped; its open transaction rolled back` });
    }
    if (proc.spec.restart) {
      const machine = (proc.machine ??= this.workerActor(proc, proc.spec.restart));
      proc.restartPending = machine.getSnapshot().context.restarts < proc.spec.restart.maxRestarts;
      machine.send({ type: 'CRASH' });
    }
  }

  /**
   * A restartable worker's lifecycle actor, created at its first crash. Before that nothing can
   * read it: a live worker moves between idle, receiving, handling and acking, and every one of
   * those goes to `crashed` on CRASH with no restarts counted, just as a fresh actor in `idle`
   * does. So the actor is not created, and not sent those events, for the many runs where the
   * worker never crashes (an actor and its events cost a few per cent of a schedule); from the first
   * crash on it receives every event, exactly as before.
   */
  private workerActor(proc: Proc, input: NonNullable<ProcessSpec['restart']>): ActorRefFrom<typeof workerMachine> {
    const machine = createActor(workerMachine, { clock: this.clock, input });
    machine.on('restart', () => this.restart(proc));
    machine.start();
    return machine;
  }

  // ── queue ──────────────────────────────────────────────────────────────

  private addMessage(id: string, body: unknown) {
    const actor = createActor(messageMachine, {
      clock: this.clock,
      input: { id, body, visibilityTimeoutMs: this.world.visibilityTimeoutMs, maxReceives: this.world.maxReceives },
    });
    actor.on('redelivered', ({ deliveries }) =>
      this.emit({ actor: 'queue', type: 'redeliver', text: `visibility timeout: message ${id} is visible again (delivered ${deliveries}× so far)`, data: { messageId: id } }),
    );
    actor.on('deadLettered', ({ deliveries }) =>
      this.emit({ actor: 'queue', type: 'dead-letter', text: `message ${id} dead-lettered after ${deliveries} deliveries`, data: { messageId: id } }),
    );
    actor.start();
    this.messages.set(id, actor);
  }

  private unsettled(): boolean {
    for (const a of this.messages.values()) {
      const v = a.getSnapshot().value;
      if (v === 'ready' || v === 'inFlight') return true;
    }
    return false;
  }

  /** Whether a producer may still publish. */
  private producing(): boolean {
    for (const p of this.procs.values()) if (p.spec.producer && (p.alive || p.restartPending)) return true;
    return false;
  }

  private readyMessage(): [string, ActorRefFrom<typeof messageMachine>] | null {
    for (const entry of this.messages) if (entry[1].getSnapshot().value === 'ready') return entry;
    return null;
  }

  /** A message held by a consumer that a duplicate-delivery fault due by now hands to another, and that fault. */
  private duplicateCandidate(): [string, ActorRefFrom<typeof messageMachine>, DuplicateDelivery] | null {
    for (const [id, actor] of this.messages) {
      const faults = this.duplicateFaults.get(id);
      if (!faults?.length || actor.getSnapshot().value !== 'inFlight') continue;
      const due = faults.find((f) => f.atStep === undefined || this.stepsRun >= f.atStep);
      if (due) return [id, actor, due];
    }
    return null;
  }

  // ── env ────────────────────────────────────────────────────────────────

  private makeEnv(proc: Proc, incarnation: number): Env {
    const pid = proc.spec.id;
    const reg = (s: Omit<Step, 'seq' | 'pid' | 'incarnation' | 'resolve' | 'reject'>) => this.register(proc, incarnation, s);
    const now = () => this.clock.now();
    const callSites = !this.options.verdictOnly;

    /** `refusal`: why this statement is not run (it fails at its step with that message). */
    const dbQuery = <R>(text: string, params?: unknown[], refusal?: string): Promise<QueryResult<R>> => {
      // Where the process called from: an SQL error is rethrown with this stack, so it points at
      // the learner's line rather than at the engine.
      const callSite = callSites ? new Error('query') : undefined;
      return reg({
        kind: 'db',
        label: sqlLabel(text),
        sql: text,
        readyAt: 0,
        enabled: () => this.db.canRun(pid),
        exec: async () => {
          try {
            if (refusal) throw new Error(refusal);
            // The trace keeps the SQL as written; the database gets its time keywords on the simulated clock.
            const got = await this.db.query(pid, onSimulatedClock(text), params, this.clock.now());
            if (isParked(got)) {
              this.emit({ actor: pid, type: 'db', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} — waits for a lock held by ${got.blockedBy}`, data: { sql: text, params: params ?? [], waitingFor: got.blockedBy } });
              return new FollowUp(0, `${sqlLabel(text)} (waiting for ${got.blockedBy})`, async () => {
                try {
                  const res = await got.result();
                  this.emit({ actor: pid, type: 'db', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} → ${rowSummary(text, res)} (after the lock was released)`, data: { sql: text, params: params ?? [], rows: res.rows } });
                  return { rows: res.rows };
                } catch (err) {
                  const message = err instanceof Error ? err.message : String(err);
                  this.emit({ actor: pid, type: 'db-error', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} failed: ${message}`, data: { sql: text, params: params ?? [], error: message } });
                  throw err;
                }
              }, () => got.settled());
            }
            const res = got;
            this.emit({
              actor: pid,
              type: 'db',
              target: 'postgres',
              text: `${pid} → postgres: ${sqlLabel(text)} → ${rowSummary(text, res)}`,
              data: { sql: text, params: params ?? [], rows: res.rows },
            });
            return { rows: res.rows };
          } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            this.emit({ actor: pid, type: 'db-error', target: 'postgres', text: `${pid} → postgres: ${sqlLabel(text)} failed: ${message}`, data: { sql: text, params: params ?? [], error: message } });
            throw withCallSite(err, callSite);
          }
        },
      }) as Promise<QueryResult<R>>;
    };

    const db: Db = {
      // As pg.Pool's: each query may go to another pooled connection, so a transaction cannot be
      // begun or ended here (in the simulation it would silently work, and teach the wrong thing).
      query: <R>(text: string, params?: unknown[]) => {
        const word = transactionControl(text);
        return dbQuery<R>(text, params, word ? poolTransactionRefusal(word) : undefined);
      },
      connect: async (): Promise<DbClient> => {
        let released = false;
        return {
          query: <R>(text: string, params?: unknown[]) =>
            released ? Promise.reject(new Error('query on a released client')) : dbQuery<R>(text, params),
          release: () => {
            released = true;
          },
        };
      },
    };

    /**
     * A call's options, checked the way a misspelling would otherwise go unnoticed: the provider reads
     * `idempotencyKey` only, so `{ idempotency_key }` or the key passed bare would send no key at all.
     * Says so in the trace; the call still goes, as a real SDK would send it.
     */
    const warnOnOptions = (who: string, kind: CallKind, opts: unknown): void => {
      if (opts === undefined || opts === null) return;
      if (typeof opts !== 'object') {
        this.emit({ actor: who, type: 'log', text: `${who}: ${kind} ignores its second argument: the options are an object, { idempotencyKey: … }, not the key itself, so this call carries no key` });
        return;
      }
      const unknown = Object.keys(opts).filter((k) => k !== 'idempotencyKey');
      if (unknown.length) {
        const then = 'idempotencyKey' in opts ? 'the idempotencyKey beside it is sent' : 'so this call carries no key';
        this.emit({ actor: who, type: 'log', text: `${who}: ${kind} ignores ${unknown.map((k) => `unknown option "${k}"`).join(', ')}; it reads only idempotencyKey, ${then}` });
      }
    };

    const call = <T>(kind: CallKind, request: unknown, opts: { idempotencyKey?: string } | undefined, label: string) =>
      reg({
        kind,
        label,
        readyAt: 0,
        exec: () => {
          const nth = (this.callCounts.get(kind) ?? 0) + 1;
          this.callCounts.set(kind, nth);
          const faults = this.options.faults.filter((f) => 'call' in f && f.call === kind && (f.nth ?? 1) === nth);
          const lostRequest = faults.some((f) => f.kind === 'lose-request');
          const lostResponse = faults.some((f) => f.kind === 'lose-response');
          const slow = faults.find((f) => f.kind === 'slow-response') as { ms: number } | undefined;
          /** Record `event` as where this call's faults of `kind` took effect. */
          const took = (kind: Fault['kind'], event: TraceEvent) => {
            for (const f of faults) if (f.kind === kind) this.tookEffect.set(f, event.i);
          };
          const timeoutMs = this.providers.timeoutMs;
          const provider = kind.slice(0, kind.indexOf('.'));
          if (lostRequest) {
            took('lose-request', this.emit({ actor: pid, type: 'call', call: kind, target: provider, fault: 'lose-request', text: `${pid} → ${provider}: ${label} — the request is lost on the way` }));
            return new FollowUp(now() + timeoutMs, `${label} (timeout)`, () => {
              this.emit({ actor: pid, type: 'timeout', target: provider, text: `${pid}: ${label} timed out after ${timeoutMs / 1000} s (nothing reached ${provider})` });
              throw new TimeoutError(kind, timeoutMs);
            });
          }
          const outcome = this.providers.apply(kind, request, opts, this.elapsed(), this.trace.length, pid);
          this.emit({ actor: pid, type: 'call', call: kind, target: provider, text: `${pid} → ${provider}: ${label}${opts?.idempotencyKey ? ` [key ${opts.idempotencyKey.slice(0, 8)}…]` : ''} — ${outcome.summary}`, data: { request, options: opts ?? {}, response: outcome.response } });
          if (lostResponse) {
            return new FollowUp(now() + timeoutMs, `${label} (timeout)`, () => {
              took('lose-response', this.emit({ actor: pid, type: 'timeout', target: provider, fault: 'lose-response', text: `${pid}: ${label} timed out after ${timeoutMs / 1000} s — but ${provider} had acted (the response was lost)` }));
              throw new TimeoutError(kind, timeoutMs);
            });
          }
          if (slow && slow.ms >= timeoutMs) {
            return new FollowUp(now() + timeoutMs, `${label} (timeout)`, () => {
              took('slow-response', this.emit({ actor: pid, type: 'timeout', target: provider, fault: 'slow-response', text: `${pid}: ${label} timed out after ${timeoutMs / 1000} s — ${provider} had acted but was too slow to answer` }));
              throw new TimeoutError(kind, timeoutMs);
            });
          }
          const latency = slow ? slow.ms : this.providers.latencyMs(kind);
          return new FollowUp(now() + latency, `${label} (reply)`, () => {
            if (outcome.error) {
              const e = this.emit({ actor: provider, type: 'reply', target: pid, fault: slow ? 'slow-response' : undefined, text: `${provider} → ${pid}: error ${outcome.error.message}` });
              if (slow) took('slow-response', e);
              throw outcome.error;
            }
            const e = this.emit({ actor: provider, type: 'reply', target: pid, fault: slow ? 'slow-response' : undefined, text: `${provider} → ${pid}: ${outcome.replySummary}${slow ? ` (after ${slow.ms / 1000} s)` : ''}` });
            if (slow) took('slow-response', e);
            return outcome.response;
          });
        },
      }) as Promise<T>;

    return {
      process: pid,
      db,
      queue: {
        receive: () =>
          reg({
            kind: 'queue.receive',
            label: 'receive',
            readyAt: 0,
            enabled: () => this.readyMessage() !== null || this.duplicateCandidate() !== null || (!this.unsettled() && !this.producing()),
            exec: () => {
              let entry: [string, ActorRefFrom<typeof messageMachine>] | null = this.readyMessage();
              let duplicateFault: DuplicateDelivery | undefined;
              if (!entry) {
                const candidate = this.duplicateCandidate();
                if (candidate) {
                  entry = [candidate[0], candidate[1]];
                  duplicateFault = candidate[2];
                  const left = this.duplicateFaults.get(candidate[0])!;
                  left.splice(left.indexOf(duplicateFault), 1);
                }
              }
              const duplicate = duplicateFault !== undefined;
              if (!entry) {
                this.emit({ actor: 'queue', type: 'receive', target: pid, text: `queue → ${pid}: no messages left` });
                proc.machine?.send({ type: 'IDLE' });
                return null;
              }
              const [id, actor] = entry;
              actor.send({ type: 'RECEIVE' });
              const ctx = actor.getSnapshot().context;
              const delivery: Delivery = { messageId: id, attempt: ctx.deliveries, body: ctx.body };
              const received = this.emit({
                actor: 'queue',
                type: 'receive',
                target: pid,
                fault: duplicate ? 'duplicate-delivery' : undefined,
                text: duplicate
                  ? `queue → ${pid}: message ${id} again, while another consumer still holds it (delivery ${ctx.deliveries})`
                  : `queue → ${pid}: message ${id} (delivery ${ctx.deliveries})`,
                data: delivery,
              });
              if (duplicateFault) this.tookEffect.set(duplicateFault, received.i);
              proc.machine?.send({ type: 'HANDLE' });
              return structuredCloneSafe(delivery);
            },
          }) as Promise<Delivery | null>,
        ack: (delivery: Delivery) =>
          reg({
            kind: 'queue.ack',
            label: `ack ${delivery?.messageId}`,
            readyAt: 0,
            exec: () => {
              const actor = this.messages.get(delivery?.messageId);
              if (!actor) throw new Error(`ack of unknown message ${String(delivery?.messageId)}`);
              const before = actor.getSnapshot().value;
              // A settled message's actor is final: the ack changes nothing, and says so.
              const settled = before === 'acked' || before === 'deadLettered';
              if (!settled) actor.send({ type: 'ACK' });
              const note = before === 'acked' ? ' (already acked)' : before === 'deadLettered' ? ' (too late: already dead-lettered)' : '';
              this.emit({ actor: pid, type: 'ack', target: 'queue', text: `${pid} → queue: ack ${delivery.messageId}${note}`, data: { messageId: delivery.messageId, settled } });
              proc.machine?.send({ type: 'IDLE' });
            },
          }) as Promise<void>,
        publish: (topic: string, body: unknown) =>
          reg({
            kind: 'queue.publish',
            label: `publish ${topic}`,
            readyAt: 0,
            exec: () => {
              const id = `p${this.providers.ledger.published.length + 1}`;
              this.providers.ledger.published.push({ id, topic, body: structuredCloneSafe(body), by: pid, step: this.trace.length });
              this.addMessage(id, { topic, body });
              this.emit({ actor: pid, type: 'publish', target: 'queue', text: `${pid} → queue: publish ${topic} ${JSON.stringify(body)}`, data: { topic, body } });
            },
          }) as Promise<void>,
      },
      email: {
        send: (request, options) => {
          warnOnOptions(pid, 'email.send', options);
          return call('email.send', request, options, `send ${typeof request?.template === 'string' ? `${request.template} e-mail` : 'receipt'} for order ${request?.orderId} to ${request?.to}`);
        },
      },
      payments: {
        charge: (request, options) => {
          warnOnOptions(pid, 'payments.charge', options);
          return call('payments.charge', request, options, `charge order ${request?.orderId} ${formatCents(request?.amountCents)}`);
        },
      },
      transform: {
        call: (request) => call('transform.call', request, undefined, `${request?.kind} of ${JSON.stringify(String(request?.input ?? '').slice(0, 24))}`),
        batch: (items) => call('transform.batch', items, undefined, `batch of ${Array.isArray(items) ? items.length : '?'} items`),
      },
      lookup: {
        check: (request) => call('lookup.check', request, undefined, `check ${request?.value}`),
      },
      clock: { now },
      sleep: (ms: number) =>
        reg({
          kind: 'sleep',
          label: `sleep ${sleepText(ms)}`,
          readyAt: now() + Math.max(0, ms),
          exec: () => {
            this.emit({ actor: pid, type: 'wake', text: `${pid} wakes after ${sleepText(ms)}` });
          },
        }) as Promise<void>,
      random: {
        uuid: () => this.data.uuid(),
        int: (n: number) => this.data.int(n),
      },
      log: (...args: unknown[]) => {
        this.emit({ actor: pid, type: 'log', text: `${pid}: ${args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' ')}` });
      },
    };
  }
}

function ordinal(n: number): string {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] || s[v] || s[0]}`;
}

/**
 * Which statement a crash narrowed by `sql` hit, for narration ("its 1st db step matching INSERT
 * INTO orders"). The plan's words name the statement, so the statement's own text is not repeated
 * after them: "… matching INSERT INTO orders (INSERT INTO orders (customer_id, …" said it twice.
 * After the step, the event just before the crash narrates the whole statement anyway.
 */
function sqlCrashWhen(n: number, sql: string): string {
  return `${ordinal(n)} db step matching ${sql.replace(/\s+/g, ' ').trim()}`;
}

const labels = new Map<string, string>();

/** The first words of a statement, for narration. */
export function sqlLabel(text: string): string {
  let label = labels.get(text);
  if (label === undefined) {
    // The same few statements run thousands of times in an exploration: shorten each once.
    const flat = text.replace(/\s+/g, ' ').trim();
    label = flat.length > 72 ? `${flat.slice(0, 69)}…` : flat;
    if (labels.size >= 500) labels.clear();
    labels.set(text, label);
  }
  return label;
}

function formatCents(cents: unknown): string {
  return typeof cents === 'number' ? `$${(cents / 100).toFixed(2)}` : String(cents);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Hand processes their own copy, so one process mutating a message cannot change another's. */
export function structuredCloneSafe<T>(v: T): T {
  // A lone number follows JSON too: -0 becomes 0, NaN and ±Infinity become null.
  if (typeof v === 'number') return (Number.isFinite(v) ? v + 0 : null) as T;
  if (v === null || typeof v !== 'object') return v;
  // Plain data (the usual message) is copied directly; anything else takes the JSON round trip,
  // whose result the direct copy equals wherever it applies.
  const copy = plainCopy(v, 0);
  return copy !== NOT_PLAIN ? (copy as T) : (JSON.parse(JSON.stringify(v)) as T);
}

const NOT_PLAIN = Symbol('not plain');

/**
 * A copy of `v` equal to JSON.parse(JSON.stringify(v)), or NOT_PLAIN when the two could differ:
 * only strings, booleans, null, finite numbers other than -0, arrays and objects whose prototype
 * is Object.prototype or null, with no undefined, no symbol keys, no getters, at most 32 deep.
 */
function plainCopy(v: unknown, depth: number): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0) ? v : NOT_PLAIN;
    case 'object': {
      if (v === null) return null;
      if (depth > 32) return NOT_PLAIN;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return NOT_PLAIN;
        const out = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const c = plainCopy(v[i], depth + 1);
          if (c === NOT_PLAIN) return NOT_PLAIN;
          out[i] = c;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(v).length) return NOT_PLAIN;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        const d = Object.getOwnPropertyDescriptor(v, key)!;
        if (!('value' in d) || key === '__proto__') return NOT_PLAIN;
        const c = plainCopy(d.value, depth + 1);
        if (c === NOT_PLAIN) return NOT_PLAIN;
        out[key] = c;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
}

/** "1 row", "no rows", "1 row updated": what a statement did, for narration. */
function rowSummary(text: string, res: { rows: unknown[]; affectedRows?: number }): string {
  const kind = statementKind(text);
  if (kind !== 'other' && kind !== 'ok' && res.rows.length === 0 && res.affectedRows !== undefined) {
    return `${rowCount(res.affectedRows)} ${kind}`;
  }
  if (kind === 'ok') return 'ok';
  return rowCount(res.rows.length);
}

/** What narration says a statement did, by its first word. */
const statementKind = memoByText((text): 'updated' | 'deleted' | 'inserted' | 'inserted or updated' | 'ok' | 'other' => {
  const verb = /^\s*(UPDATE|DELETE|INSERT)\b/i.exec(text)?.[1]?.toUpperCase();
  if (verb === 'UPDATE') return 'updated';
  if (verb === 'DELETE') return 'deleted';
  // An upsert's count does not say which it did: a replayed upsert updates the row it made, and
  // "1 row inserted" read as a second row (QA, replay-safety).
  if (verb === 'INSERT') return /\bON\s+CONFLICT\b[\s\S]*\bDO\s+UPDATE\b/i.test(text) ? 'inserted or updated' : 'inserted';
  return /^\s*(BEGIN|COMMIT|ROLLBACK|START|END|SET)\b/i.test(text) ? 'ok' : 'other';
});

function rowCount(n: number): string {
  return `${n === 0 ? 'no' : n} row${n === 1 ? '' : 's'}`;
}

/** `err` with the stack of where the statement was issued (its message and fields unchanged). */
function withCallSite(err: unknown, callSite: Error | undefined): unknown {
  if (!(err instanceof Error) || !callSite?.stack) return err;
  const frames = callSite.stack.split('\n').slice(1).join('\n');
  try {
    err.stack = `${err.name}: ${err.message}\n${frames}`;
  } catch {
    // A frozen error keeps its own stack.
  }
  return err;
}

/** Why `env.db.query` refuses a statement that begins or ends a transaction (`word`: BEGIN, COMMIT, …). */
function poolTransactionRefusal(word: string): string {
  return (
    `${word} through env.db.query: like pg.Pool's query, it runs each statement on whichever pooled connection is free, ` +
    `so a transaction begun this way would not hold the statements after it. Take one connection for the whole transaction: ` +
    `const client = await env.db.connect(), then client.query('BEGIN') … client.query('COMMIT') and client.release() in a finally; ` +
    `or withTransaction(env.db, async (tx) => { … })`
  );
}
