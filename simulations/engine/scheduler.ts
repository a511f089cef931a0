/**
 * The deterministic scheduler. Processes are ordinary async functions; every effect they ask of
 * `env` becomes a pending step and the process waits. When every live process is blocked on a
 * step (quiescence), the scheduler picks one enabled step — from the seeded PRNG, or from a given
 * choice list — executes it, and resolves it. A run is therefore a pure function of
 * (world, code, seed, faults); the choices it made are recorded, and replaying them reproduces the
 * run exactly.
 *
 * Faults tolerated by the engine itself: a process crashing at any step (its connection drops and
 * an open transaction rolls back; its messages stay unacked), lost and slow provider responses,
 * duplicate delivery. A process that awaits something outside `env` is stopped and reported.
 * The scheduler knows the database only through its port (../db/port.ts), the providers only
 * through their registry, and faults only through the fault plan.
 *
 * Why one file of ~500 lines: the run loop, the processes' lifecycle and step execution share the
 * scheduler's private state (pending steps, incarnations, step counts, connections being closed); what can stand alone —
 * env, queue, fault plan, narration, trace — already does.
 */
import { createActor, type ActorRefFrom } from 'xstate';
import type { SimDatabase } from '../db/port';
import { Providers } from '../providers/registry';
import { enterProcess } from '../learner/compile';
import { VirtualClock } from './clock';
import { makeEnv, type EnvHost } from './env';
import { Contention } from './contention';
import { FaultPlan, ProcessCounters } from './fault-plan';
import { afterHostTick, hostTick } from './host-tick';
import { workerMachine } from './machines';
import { Prng } from './prng';
import { Queue } from './queue';
import { SIM_EPOCH_MS } from './sim-time';
import { FollowUp, type Step, type StepRequest } from './step';
import { Trace } from './trace';
import type { Env, Fault, TraceEvent } from './types';
import type { ProcessSpec, RunOptions, RunOutcome, WorldSpec } from './world';

export type { MessageSpec, ProcessSpec, RunOptions, RunOutcome, WorldSpec } from './world';
export { sleepText, sqlLabel } from './narration';
export { structuredCloneSafe } from './plain-copy';

interface Proc {
  spec: ProcessSpec;
  incarnation: number;
  /** The running incarnation's env: which process is calling, for the learner module's memory. */
  env: Env | null;
  alive: boolean;
  /** This incarnation's step counts, for `crash after/before the nth X` faults. */
  counters: ProcessCounters;
  pending: number;
  notify: (() => void) | null;
  machine?: ActorRefFrom<typeof workerMachine>;
  restartPending: boolean;
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
  private readonly procs = new Map<string, Proc>();
  private readonly order: string[] = [];
  private pending: Step[] = [];
  private seq = 0;
  private stepsRun = 0;
  private readonly trace: Trace;
  private readonly choicesMade: number[] = [];
  private choiceCursor = 0;
  private stallRounds = 0;
  private readonly plan: FaultPlan;
  private readonly queue: Queue;
  private readonly host: EnvHost;
  private readonly processErrors: RunOutcome['processErrors'] = [];
  private readonly leftOpen: RunOutcome['leftOpen'] = [];
  /** Where each process's code began its latest transaction (traced runs). */
  private readonly beganAt = new Map<string, Error>();
  /** Connections being closed after `release(err)`, awaited before the next step; and whose. */
  private discards: Promise<void>[] = [];
  private readonly discarding = new Set<string>();
  private pendingStarts: Promise<void>[] = [];

  /** How many trace events there are so far: the index the next one will get. */
  get eventCount(): number {
    return this.trace.length;
  }

  constructor(
    private readonly world: WorldSpec,
    private readonly db: SimDatabase,
    private readonly options: RunOptions,
  ) {
    this.prng = new Prng(options.seed);
    this.trace = new Trace(!options.verdictOnly, options.onEvent);
    this.plan = new FaultPlan(options.faults);
    const emit = (event: Omit<TraceEvent, 'i' | 't' | 'step'>) => this.emit(event);
    this.queue = new Queue(this.clock, world, this.plan, emit, () => this.stepsRun);
    this.host = {
      clock: this.clock,
      db,
      plan: this.plan,
      queue: this.queue,
      providers: new Providers(world.providers ?? {}),
      // A second stream for data (UUIDs), so replaying a choice list draws the same UUIDs.
      data: new Prng((options.seed ^ 0x5bd1e995) | 0),
      verdictOnly: !!options.verdictOnly,
      contention: new Contention(options.contention),
      emit,
      elapsed: () => this.elapsed(),
      eventCount: () => this.trace.length,
      producing: () => this.producing(),
      began: (pid, callSite) => void this.beganAt.set(pid, callSite),
      discard: (pid) => this.discard(pid),
      releasedOpen: (pid, at) => void this.leftOpen.push(at ? { process: pid, how: 'released', at } : { process: pid, how: 'released' }),
    };
  }

  /** Simulated ms since the run began. */
  private elapsed(): number {
    return this.clock.now() - SIM_EPOCH_MS;
  }

  private emit(event: Omit<TraceEvent, 'i' | 't' | 'step'>): TraceEvent {
    return this.trace.emit(event, this.elapsed(), this.stepsRun);
  }

  async run(): Promise<RunOutcome> {
    if (this.world.setupSql) await this.db.exec(this.world.setupSql);
    for (const m of this.world.messages) this.queue.add(m.id, m.body);
    for (const spec of this.world.processes) {
      this.procs.set(spec.id, { spec, incarnation: 0, env: null, alive: false, counters: new ProcessCounters(), pending: 0, notify: null, restartPending: false });
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
      if (this.options.stopWhen?.()) {
        endingDetail = 'stopped by its caller';
        break;
      }
      // A run settles through microtasks only. A long one (a handler looping on `await env.db…`
      // until the step limit) lets the host's tasks in now and then: the browser worker's heartbeat,
      // without which the page's watchdog took it for a loop that never awaits. Host turns decide nothing.
      if (this.stepsRun % HOST_TURN_EVERY_STEPS === 0) await hostTick();
    }

    // No process runs any more: a late call into the learner's module (a stray promise of a
    // crashed incarnation) is no process's, and gets the load's own evaluation.
    enterProcess(null);
    await this.drainDiscards();
    for (const p of this.procs.values()) {
      if (this.db.inTransaction(p.spec.id) && (await this.db.drop(p.spec.id))) {
        this.emit({ actor: p.spec.id, type: 'rollback', target: 'postgres', text: `${p.spec.id} left a transaction open; it was rolled back` });
      }
    }
    const queue = this.queue.finish();
    for (const p of this.procs.values()) p.machine?.stop();
    return {
      trace: this.trace.events,
      traceHash: this.trace.hash(),
      choices: this.choicesMade,
      steps: this.stepsRun,
      ledger: this.host.providers.ledger,
      durationMs: this.elapsed(),
      ending,
      endingDetail,
      processErrors: this.processErrors,
      leftOpen: this.leftOpen,
      queue,
      faultEvents: this.plan.events(),
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

  /** Whether a producer may still publish (while one is alive or about to restart, an empty queue makes receive wait). */
  private producing(): boolean {
    for (const p of this.procs.values()) if (p.spec.producer && (p.alive || p.restartPending)) return true;
    return false;
  }

  // ── processes ──────────────────────────────────────────────────────────

  private async startProcess(proc: Proc) {
    proc.alive = true;
    proc.incarnation++;
    proc.pending = 0;
    proc.counters = new ProcessCounters();
    const incarnation = proc.incarnation;
    const env = makeEnv(
      this.host,
      proc.spec.id,
      (s) => this.register(proc, incarnation, s),
      (type) => proc.machine?.send({ type }),
    );
    proc.env = env;
    this.emit({ actor: proc.spec.id, type: proc.incarnation === 1 ? 'start' : 'restart', text: proc.incarnation === 1 ? `${proc.spec.id} starts` : `${proc.spec.id} restarts (run ${incarnation})` });
    // This incarnation runs now: its calls into the learner's module use its own evaluation of it.
    enterProcess(env);
    const done = (async () => proc.spec.main(env))();
    done.then(
      () => {
        if (proc.alive && proc.incarnation === incarnation) {
          proc.alive = false;
          if (this.db.inTransaction(proc.spec.id) && !this.discarding.has(proc.spec.id)) {
            const at = this.beganAt.get(proc.spec.id);
            this.leftOpen.push(at ? { process: proc.spec.id, how: 'returned', at } : { process: proc.spec.id, how: 'returned' });
          }
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

  private async drainStarts() {
    while (this.pendingStarts.length) await this.pendingStarts.shift();
  }

  /** `release(err)`: the pool closes that connection, which rolls back what it left open. */
  private discard(pid: string) {
    this.discarding.add(pid);
    this.discards.push(
      this.db.drop(pid).then((rolledBack) => {
        this.discarding.delete(pid);
        if (rolledBack) this.emit({ actor: pid, type: 'rollback', target: 'postgres', text: `${pid} released its client with an error: the pool closed that connection, and its open transaction rolled back` });
      }),
    );
  }

  private async drainDiscards() {
    while (this.discards.length) await this.discards.shift();
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

  private register(proc: Proc, incarnation: number, step: StepRequest): Promise<unknown> {
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
        params: step.params,
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
      const hit = this.plan.crashAt('before', proc.counters, step.pid, step.kind, step.label, step.sql);
      if (hit) {
        this.stepsRun++;
        await this.crash(proc, hit.when, hit.fault);
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
      const hit = this.plan.crashAt('after', proc.counters, step.pid, step.kind, step.label, step.sql);
      if (hit) {
        await this.crash(proc, hit.when, hit.fault);
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
   * Crash faults "at step N", once N steps have run: each kills its process the first moment it is
   * up while the step count is N, so also right after a restart at that count (a timer fired by
   * advanceTo), as "crash worker-1 now" at the event "worker-1 restarts" means. Each fires once: the
   * restart that follows its own crash is not killed again.
   */
  private async applyStepFaults() {
    // Timers fired by advanceTo may have restarted a worker: let it reach its first step before a
    // crash can land on it (a crash in the middle of its start would leave the start waiting).
    await this.drainDiscards();
    await this.drainStarts();
    for (const f of this.plan.dueAtStep(this.stepsRun)) {
      const proc = this.procs.get(f.process);
      if (!proc?.alive) continue;
      await this.crash(proc, `at scheduler step ${f.atStep}`, f);
    }
  }

  /** Kill a process for `fault` of the plan: it never resumes, its connection drops, its messages stay unacked. */
  private async crash(proc: Proc, when: string, fault: Fault) {
    if (!proc.alive) return;
    proc.alive = false;
    proc.notify = null;
    // The statements it had asked for and never saw run (a complete issued right after an answer).
    const unrun = this.pending.filter((s) => s.pid === proc.spec.id && s.kind === 'db').map((s) => ({ sql: s.sql, params: s.params ?? [] }));
    this.pending = this.pending.filter((s) => s.pid !== proc.spec.id);
    proc.pending = 0;
    const e = this.emit({ actor: proc.spec.id, type: 'crash', fault: 'crash', text: `${proc.spec.id} crashes ${when}`, data: { before: 'before' in fault ? fault.before : null, unrun } });
    this.plan.fired(fault, e.i);
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
   * crash on it receives every event.
   */
  private workerActor(proc: Proc, input: NonNullable<ProcessSpec['restart']>): ActorRefFrom<typeof workerMachine> {
    const machine = createActor(workerMachine, { clock: this.clock, input });
    machine.on('restart', () => this.restart(proc));
    machine.start();
    return machine;
  }
}
