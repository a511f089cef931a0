/**
 * One run of a scenario, and the explorer over many. A run is a pure function of
 * (scenario, code, seed, faults, choices); its result carries everything needed to replay it.
 *
 * The explorer draws a fault plan from each seed (swarm testing: each fault of the scenario's menu
 * is in or out by a coin flip, up to the scenario's maximum), runs it, counts violations by
 * invariant, and shrinks the first counterexample: fewer faults first, then a shorter and smaller
 * choice list, keeping only changes that still break the same invariant.
 */
import type { Failure } from './failure';
import { systematicPlans } from './systematic';
import { Engine, type RunOptions, type RunOutcome } from '../engine/scheduler';
import { ConductComparison, ignoredKey, mayMeetContention, probePoints, watchedBy, type ContentionOptions } from '../engine/contention';
import { LearnerCodeError, learnerLocation, loadLearnerModule } from '../learner/compile';
import { hostTick } from '../engine/host-tick';
import { Prng } from '../engine/prng';
import { emptyLedger, ledgerEffects } from '../providers/registry';
import type { CodeError, Scenario } from '../lessons/kit/scenario';
import type { SimDatabase } from '../db/port';
import type { Fault, InvariantResult, TraceEvent } from '../engine/types';

/**
 * A run settles through microtasks only; an exploration or a shrink is hundreds of runs back to
 * back. Every this many runs they give the host a turn, so its own tasks get in between: the
 * browser worker's heartbeat (the page's watchdog took a long shrink's silence for a stuck loop)
 * and a Cancel. One turn per run cost 4–9 % of a schedule in Node; eight runs take ~10–25 ms in a
 * tab, far inside the watchdog's 2 s.
 */
export const HOST_TURN_EVERY_RUNS = 8;

/** The variant names every scenario has. */
export type VariantName = 'starter' | 'solution';

/** What to run. */
export interface RunRequest {
  scenario: Scenario;
  /** Source code of the learner's module. */
  code: string;
  /** A label for results: starter, solution, a file path, "learner". */
  variant: string;
  seed: number;
  /** Defaults to the scenario's demonstration plan. */
  faults?: readonly Fault[];
  choices?: readonly number[];
  onEvent?: RunOptions['onEvent'];
  afterStep?: RunOptions['afterStep'];
  beforeRollback?: RunOptions['beforeRollback'];
  /** Only the verdict matters (exploring, shrinking): see RunOptions.verdictOnly. */
  verdictOnly?: boolean;
}

/** What a run found. */
export interface RunResult {
  scenario: string;
  variant: string;
  seed: number;
  faults: Fault[];
  /**
   * For each fault, the trace event at which it took effect, or null when it never did (its step
   * never came, or its process was already down).
   */
  faultEvents: (number | null)[];
  choices: number[];
  /** '' for a verdict-only run (an exploration's). */
  traceHash: string;
  steps: number;
  /** "held": every invariant held; "violated": one broke; "error": the code could not run. */
  verdict: 'held' | 'violated' | 'error';
  invariants: InvariantResult[];
  /** Side effects by kind (`effectsOf`): receipts per order, other e-mails per template and order, charges per order, replays answered. */
  effects: Record<string, number>;
  durationMs: number;
  ending: RunOutcome['ending'];
  endingDetail?: string;
  /** The code could not be loaded: syntax error, missing export. */
  error?: { message: string; line?: number; column?: number; phase: string };
  /** Errors thrown by the learner's code during the run. */
  codeErrors: CodeError[];
  /** The lesson's prediction as this run answers it (an option id, and the figure in words); not for verdict-only runs. */
  prediction?: { outcome: string; described: string };
  trace: TraceEvent[];
  ledger: RunOutcome['ledger'];
  /**
   * The queue as the world declared it, for views that follow its messages: the visibility
   * timeout (a received message is redelivered that long after its latest delivery unless acked),
   * the deliveries after which it is dead-lettered instead, and the messages waiting at the start.
   * Absent when the code did not load (nothing ran).
   */
  queueSettings?: QueueSettings;
}

/** See {@link RunResult.queueSettings}. */
export interface QueueSettings {
  visibilityTimeoutMs: number;
  maxReceives: number;
  /** Ids of the messages in the queue, ready, before the first step. */
  initial: string[];
}

/** The variant's source, by name. */
export function variantCode(scenario: Scenario, name: VariantName): string {
  return scenario.variants[name].code;
}

/**
 * Run one schedule. The database is reset first; the same inputs give the same traceHash.
 *
 * On PGlite, code that takes a try-lock or reads SKIP LOCKED inside a transaction is also asked
 * whether it obeys the answer a contended lock would give (../engine/contention.ts): a full run
 * finds those statements in a verdict-only run first and probes them, so its trace already says
 * which answers were ignored; a verdict-only run probes only when it held, and runs again with
 * what the probes found if any answer was ignored. The verdict is the same either way (an ignored
 * answer only takes a lock away); a violated verdict-only run may list fewer broken invariants
 * than its full replay, which also names the ignored lock's.
 */
export async function runScenario(db: SimDatabase, req: RunRequest): Promise<RunResult> {
  const probing = db.name === 'pglite' && mayMeetContention(req.code);
  if (!probing) return runOnce(db, req);
  const watched = watchedBy(req.code);
  if (!req.verdictOnly) {
    const found = await runOnce(db, { ...req, verdictOnly: true, onEvent: undefined, afterStep: undefined, beforeRollback: undefined }, watched);
    const ignored = await ignoredAnswers(db, req, found, watched);
    return runOnce(db, req, { ignored, ...watched });
  }
  const first = await runOnce(db, req, watched);
  if (first.verdict !== 'held') return first;
  const ignored = await ignoredAnswers(db, req, first, watched);
  return ignored.length ? runOnce(db, req, { ignored, ...watched }) : first;
}

/**
 * The statements of `run` whose contended answer its code ignores (see runScenario), as
 * `ContentionOptions.ignored` keys: each probed in a run of the same schedule, stopped once the
 * process's conduct after it differed or its window closed the same.
 */
async function ignoredAnswers(db: SimDatabase, req: RunRequest, run: RunResult, watched: ContentionOptions): Promise<string[]> {
  const ignored: string[] = [];
  if (run.error) return ignored;
  for (const { point, sql, at } of probePoints(run.trace)) {
    const mod = loadLearnerModule(req.code);
    const world = req.scenario.build(mod, { seed: req.seed });
    const conduct = new ConductComparison(run.trace, point, at);
    await db.reset();
    const engine = new Engine(world.spec, db, {
      seed: req.seed,
      faults: run.faults,
      choices: run.choices,
      verdictOnly: true,
      contention: { contend: point, ...watched },
      onEvent: (e) => conduct.see(e),
      stopWhen: () => conduct.obeyed !== null,
    });
    await engine.run();
    if (!conduct.finish()) ignored.push(ignoredKey(point.pid, sql));
  }
  return ignored;
}

/** One run of the schedule, told what the probes found (`contention`). */
async function runOnce(db: SimDatabase, req: RunRequest, contention?: ContentionOptions): Promise<RunResult> {
  const faults = [...(req.faults ?? req.scenario.demo.faults)];
  const base = { scenario: req.scenario.id, variant: req.variant, seed: req.seed, faults };
  let mod: Record<string, unknown>;
  let world;
  try {
    mod = loadLearnerModule(req.code);
    world = req.scenario.build(mod, { seed: req.seed });
  } catch (err) {
    const e = err instanceof LearnerCodeError ? err : new LearnerCodeError(String((err as Error)?.message ?? err), undefined, undefined, 'load');
    return {
      ...base,
      faultEvents: faults.map(() => null),
      choices: [],
      traceHash: '',
      steps: 0,
      verdict: 'error',
      invariants: [],
      effects: {},
      durationMs: 0,
      ending: 'finished',
      error: { message: e.message, line: e.line, column: e.column, phase: e.phase },
      codeErrors: [],
      trace: [],
      ledger: emptyLedger(),
    };
  }
  await db.reset();
  const engine = new Engine(world.spec, db, { seed: req.seed, faults, choices: req.choices, onEvent: req.onEvent, afterStep: req.afterStep, beforeRollback: req.beforeRollback, verdictOnly: req.verdictOnly, contention });
  stampEvents(world.codeErrors, () => engine.eventCount);
  const outcome = await engine.run();
  // A run that ended with a process waiting for what can never come (a lock its holder never lets
  // go, a transaction another process left open) is a hung worker on a real server too: a failure.
  if (outcome.ending === 'stuck') {
    const stuckPid = world.spec.processes.find((p) => outcome.endingDetail?.startsWith(`${p.id} `))?.id ?? 'engine';
    world.codeErrors.push({ process: stuckPid, message: `hangs for good: ${outcome.endingDetail ?? 'nothing can move'}`, failure: true });
  }
  // Its code returned, or released its client, inside a transaction: on pg.Pool that connection is
  // lost idle in transaction, or handed on with the transaction open. A bug on any server.
  for (const { process, how, at } of outcome.leftOpen) {
    const loc = at ? learnerLocation(at) : null;
    world.codeErrors.push({ process, message: how === 'returned' ? LEFT_OPEN : RELEASED_OPEN, ...(loc ?? {}), failure: true });
  }
  const invariants: InvariantResult[] = [];
  for (const inv of req.scenario.invariants) {
    const r = await inv.check({ outcome, db, messages: world.spec.messages, observed: world.observed });
    invariants.push({ id: inv.id, title: inv.title, ...r });
  }
  const verdict = invariants.every((i) => i.held) ? 'held' : 'violated';
  const facts = { verdict, invariants, ledger: outcome.ledger } as const;
  const prediction = req.scenario.prediction && !req.verdictOnly ? { outcome: req.scenario.prediction.measure(facts), described: req.scenario.prediction.describe(facts) } : undefined;
  return {
    ...base,
    faultEvents: outcome.faultEvents,
    choices: outcome.choices,
    traceHash: outcome.traceHash,
    steps: outcome.steps,
    verdict,
    invariants,
    effects: effectsOf(outcome),
    durationMs: outcome.durationMs,
    ending: outcome.ending,
    endingDetail: outcome.endingDetail,
    // A plain copy: the recording array carries its own push (see stampEvents), which a structured
    // clone (postMessage to the page) would refuse.
    codeErrors: [...world.codeErrors],
    trace: outcome.trace,
    ledger: outcome.ledger,
    queueSettings: { visibilityTimeoutMs: world.spec.visibilityTimeoutMs, maxReceives: world.spec.maxReceives, initial: world.spec.messages.map((m) => m.id) },
    ...(prediction ? { prediction } : {}),
  };
}

/** The failure of a process whose code returned with its transaction open. */
export const LEFT_OPEN =
  'returned with its transaction still open (a BEGIN with no COMMIT or ROLLBACK on that path): on pg.Pool the client stays checked out, idle in transaction, holding its locks, and its writes never commit; end every path with COMMIT or ROLLBACK, and release() in a finally';

/** The failure of a process that released its client while its transaction was open. */
export const RELEASED_OPEN =
  'released its client inside an open transaction (no COMMIT or ROLLBACK before release()): pg.Pool hands that connection, transaction and all, to its next caller, whose statements then run inside it; end the transaction first, or release(err) to have the pool close the connection';

/** Stamp each error recorded into `errors` from now on with the trace position it happened at. */
function stampEvents(errors: CodeError[], position: () => number): void {
  const push = errors.push.bind(errors);
  Object.defineProperty(errors, 'push', {
    value: (...items: CodeError[]) => push(...items.map((e) => ({ ...e, event: position() }))),
    enumerable: false,
  });
}

/**
 * Counts of side effects by kind: receipts per order (an e-mail without a template), other e-mails
 * per template and order ("reminder-emails:order-1042"), charges per order, and so on.
 */
export function effectsOf(outcome: RunOutcome): Record<string, number> {
  const effects: Record<string, number> = {};
  const bump = (k: string) => (effects[k] = (effects[k] ?? 0) + 1);
  ledgerEffects(outcome.ledger, bump);
  effects['redeliveries'] = outcome.trace.filter((e) => e.type === 'redeliver').length;
  effects['crashes'] = outcome.trace.filter((e) => e.type === 'crash').length;
  return effects;
}

/**
 * The fault plan the explorer uses for `seed`: seeds 1, 2, … take the lesson's systematic plans in
 * order (systematic.ts), later seeds draw one at random from the fault menu.
 */
export function drawFaults(scenario: Scenario, seed: number): Fault[] {
  const systematic = systematicPlans(scenario);
  if (seed >= 1 && seed <= systematic.length) return systematic[seed - 1]!.map((f) => ({ ...f }));
  return drawRandomFaults(scenario, seed);
}

/**
 * The random part of `drawFaults`: each menu entry in or out by a coin flip from `seed`, at most
 * maxFaults. The entries are flipped in an order shuffled per seed, so the cap does not favour the
 * menu's first entries: every entry is as likely to be drawn as any other. The plan keeps the
 * menu's order; a duplicate delivery the menu places at a moment lands, on every other draw, at a
 * moment drawn from the seed instead (`drawnMoment`).
 */
export function drawRandomFaults(scenario: Scenario, seed: number): Fault[] {
  const prng = new Prng((seed * 2654435761) ^ 0x2545f491);
  const order = scenario.faultMenu.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = prng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const chosen = new Set<number>();
  for (const i of order) {
    if (chosen.size < scenario.maxFaults && prng.chance(1, 2)) chosen.add(i);
  }
  const moments = new Prng((seed * 2246822519) ^ 0x68e31da4);
  return scenario.faultMenu.filter((_, i) => chosen.has(i)).map((f) => (f.kind === 'duplicate-delivery' && f.afterMs !== undefined && moments.chance(1, 2) ? { ...f, afterMs: drawnMoment(moments) } : f));
}

/**
 * Where a drawn duplicate delivery lands instead of its menu's moment, in ms after the message's
 * first delivery: a quarter of the draws in each of 0.5–2 s, 2–8 s, 8–32 s and 32–128 s, in 100 ms
 * steps. The menu places repeats where a lesson's story needs them; a repeat in the real world
 * comes whenever a timeout, a redelivery or a human makes it, so a lease that covers one slow call
 * but not its retry, or a window between two statements seconds apart, is met by some seed.
 */
function drawnMoment(prng: Prng): number {
  const from = [500, 2_000, 8_000, 32_000][prng.int(4)]!;
  return from + 100 * prng.int((3 * from) / 100);
}

/** Options of an exploration. */
export interface ExploreOptions {
  scenario: Scenario;
  code: string;
  variant: string;
  runs: number;
  /** Seeds are firstSeed, firstSeed + 1, … */
  firstSeed?: number;
  /** Most candidate runs the shrinker may spend. */
  shrinkBudget?: number;
  /** Called after each run: how many are done, and the latest verdict. */
  onProgress?: (done: number, total: number, result: RunResult) => void | Promise<void>;
  /** Return true to stop early (the lab's cancel button). */
  shouldStop?: () => boolean;
  /** Host time in ms, for schedules per second; left out, the figure is null. */
  hostNow?: () => number;
}

/** A counterexample: everything needed to replay it. */
export interface Counterexample {
  seed: number;
  faults: Fault[];
  choices: number[];
  steps: number;
  invariant: string;
  detail: string;
  /** How many runs shrinking tried. */
  shrinkRuns: number;
}

/** What an exploration found. */
export interface ExploreResult {
  scenario: string;
  variant: string;
  runs: number;
  violations: number;
  /** Schedules whose code could not load (a syntax error, a missing export): the exploration stops at the first. */
  errors: number;
  /** Schedules in which the code failed (CodeError.failure: a TypeError, a rejected statement, …), invariants broken or not. */
  failures: number;
  /** The first schedule in which the code failed, how, and its fault plan (to replay it: no choices). */
  firstFailure: (Failure & { seed: number; faults: Fault[] }) | null;
  /** Violations by invariant id. */
  byInvariant: Record<string, number>;
  /** Runs by outcome: "held", or "violated: " and the ids of the invariants broken. */
  histogram: Record<string, number>;
  schedulesPerSecond: number | null;
  counterexample: Counterexample | null;
  firstSeed: number;
}

/** What the explorer keeps of one schedule (small enough to pass between threads). */
export interface ScheduleSummary {
  seed: number;
  verdict: RunResult['verdict'];
  /** Ids of the invariants it broke, in the scenario's order. */
  broken: string[];
  /** The code's first failure in this schedule (CodeError.failure), if it failed. */
  failure?: Failure;
}


/** Whether a broken invariant counts against the code in an exploration: not when it broke only beyond keys. */
export function countsAgainstCode(inv: InvariantResult): boolean {
  return !inv.held && !inv.beyondKeys;
}

/**
 * The summary of one run, as the explorer counts it: an invariant broken only across the gap the
 * lesson's design leaves open (`beyondKeys`) is not counted, and a run with nothing else broken is
 * a held schedule.
 */
export function summarize(result: RunResult): ScheduleSummary {
  const failed = result.codeErrors.find((e) => e.failure);
  const broken = result.invariants.filter(countsAgainstCode).map((i) => i.id);
  return {
    seed: result.seed,
    verdict: result.verdict === 'violated' && broken.length === 0 ? 'held' : result.verdict,
    broken,
    ...(failed
      ? { failure: { process: failed.process, message: failed.message, ...(failed.line ? { line: failed.line } : {}), ...(failed.returned ? { returned: true as const } : {}) } }
      : {}),
  };
}

/** One schedule of an exploration: the seed's own fault plan, run for its verdict only. */
export function exploreSeed(db: SimDatabase, opts: Pick<ExploreOptions, 'scenario' | 'code' | 'variant'>, seed: number): Promise<RunResult> {
  return runScenario(db, { scenario: opts.scenario, code: opts.code, variant: opts.variant, seed, faults: drawFaults(opts.scenario, seed), verdictOnly: true });
}

/**
 * The explorer's counts. Schedules must be added in seed order: the first violation is the one to
 * shrink, and an error (code that cannot load) ends the exploration where it occurred. Explorers
 * that run seeds on several threads add their summaries in seed order too, so they report exactly
 * what one thread would.
 */
export class ExploreTally {
  readonly byInvariant: Record<string, number> = {};
  readonly histogram: Record<string, number> = {};
  violations = 0;
  errors = 0;
  failures = 0;
  firstFailure: (NonNullable<ScheduleSummary['failure']> & { seed: number }) | null = null;
  done = 0;
  /** The first violating seed, if any. */
  firstViolation: number | null = null;

  constructor(scenario: Scenario) {
    for (const inv of scenario.invariants) this.byInvariant[inv.id] = 0;
  }

  /** Count one schedule; false when the exploration must stop here (an error). */
  add(s: ScheduleSummary): boolean {
    this.done++;
    if (s.verdict === 'error') {
      this.errors++;
      return false;
    }
    if (s.failure) {
      this.failures++;
      this.firstFailure ??= { seed: s.seed, ...s.failure };
    }
    const key = keyOf(s.broken);
    this.histogram[key] = (this.histogram[key] ?? 0) + 1;
    if (s.verdict === 'violated') {
      this.violations++;
      for (const id of s.broken) this.byInvariant[id]++;
      this.firstViolation ??= s.seed;
    }
    return true;
  }

  result(opts: ExploreOptions, elapsedMs: number | null, counterexample: Counterexample | null): ExploreResult {
    return {
      scenario: opts.scenario.id,
      variant: opts.variant,
      runs: this.done,
      violations: this.violations,
      errors: this.errors,
      failures: this.failures,
      firstFailure: this.firstFailure && { ...this.firstFailure, faults: drawFaults(opts.scenario, this.firstFailure.seed) },
      byInvariant: this.byInvariant,
      histogram: this.histogram,
      schedulesPerSecond: elapsedMs ? Math.round((this.done / elapsedMs) * 1000) : null,
      counterexample,
      firstSeed: opts.firstSeed ?? 1,
    };
  }
}

/** Run `runs` schedules and shrink the first violation. */
export async function explore(db: SimDatabase, opts: ExploreOptions): Promise<ExploreResult> {
  const firstSeed = opts.firstSeed ?? 1;
  const tally = new ExploreTally(opts.scenario);
  let first: RunResult | null = null;
  const t0 = opts.hostNow?.();
  for (let i = 0; i < opts.runs; i++) {
    if (i % HOST_TURN_EVERY_RUNS === 0) await hostTick();
    if (opts.shouldStop?.()) break;
    const result = await exploreSeed(db, opts, firstSeed + i);
    const summary = summarize(result);
    const goOn = tally.add(summary);
    if (summary.verdict === 'violated') first ??= result;
    await opts.onProgress?.(tally.done, opts.runs, result);
    if (!goOn) break;
  }
  const elapsed = t0 === undefined ? null : opts.hostNow!() - t0;
  const counterexample = first ? await shrink(db, opts, first) : null;
  return tally.result(opts, elapsed, counterexample);
}

/**
 * Finish an exploration whose schedules were run elsewhere (other workers, in chunks): count
 * `summaries` in seed order as `explore` does (stopping at code that cannot load), and shrink the
 * first violation, whose run is repeated here. Runs are pure functions of their inputs, so the
 * result is the one `explore` on one database gives; only `schedulesPerSecond` is the caller's
 * (`elapsedMs`).
 */
export async function finishExploration(db: SimDatabase, opts: ExploreOptions, summaries: readonly ScheduleSummary[], elapsedMs: number | null): Promise<ExploreResult> {
  const tally = new ExploreTally(opts.scenario);
  const firstSeed = opts.firstSeed ?? 1;
  for (const [i, s] of summaries.entries()) {
    if (s.seed !== firstSeed + i) throw new Error(`schedule ${i + 1} has seed ${s.seed}, not ${firstSeed + i}: summaries must come in seed order, none missing`);
    if (!tally.add(s)) break;
  }
  const counterexample = tally.firstViolation === null ? null : await shrinkSeed(db, opts, tally.firstViolation);
  return tally.result(opts, elapsedMs, counterexample);
}

/**
 * Shrink the schedule of `seed`, which violated where another database ran it (another worker or
 * thread): it is run again here first, and must violate here too.
 */
export async function shrinkSeed(db: SimDatabase, opts: ExploreOptions, seed: number): Promise<Counterexample> {
  const failing = await exploreSeed(db, opts, seed);
  if (summarize(failing).verdict !== 'violated') throw new Error(`seed ${seed} violated in one worker and not in another: a run is not deterministic`);
  return shrink(db, opts, failing);
}

/** A short name for what a run's side effects came to, for the outcome histogram. */
export function outcomeKey(result: RunResult): string {
  return keyOf(summarize(result).broken);
}

function keyOf(broken: readonly string[]): string {
  return broken.length ? `violated: ${broken.join(', ')}` : 'held';
}

/**
 * Shrink a violating run: drop faults one by one, then cut the choice list (halving, then single
 * choices), then lower each choice toward 0 — keeping a candidate only if it still breaks the
 * same invariant. Every candidate is a full deterministic run.
 */
export async function shrink(db: SimDatabase, opts: ExploreOptions, failing: RunResult): Promise<Counterexample> {
  const target = failing.invariants.find(countsAgainstCode)!.id;
  const budget = opts.shrinkBudget ?? 300;
  let tries = 0;
  let best = { faults: failing.faults, choices: trimZeros(failing.choices), result: failing };

  const attempt = async (faults: Fault[], choices: number[]) => {
    if (tries >= budget) return false;
    const same = faults.length === best.faults.length && sameList(trimZeros(choices), trimZeros(best.choices));
    if (same) return false;
    if (tries % HOST_TURN_EVERY_RUNS === 0) await hostTick();
    tries++;
    const r = await runScenario(db, { scenario: opts.scenario, code: opts.code, variant: opts.variant, seed: failing.seed, faults, choices, verdictOnly: true });
    if (r.verdict === 'violated' && r.invariants.some((i) => i.id === target && countsAgainstCode(i))) {
      best = { faults, choices: trimZeros(r.choices), result: r };
      return true;
    }
    return false;
  };

  // Fewest faults.
  for (let i = 0; i < best.faults.length; ) {
    const fewer = best.faults.filter((_, j) => j !== i);
    if (!(await attempt(fewer, best.choices))) i++;
  }
  // Fewest steps: shorter choice lists fall back to the default schedule (choice 0).
  for (let chunk = Math.max(1, best.choices.length >> 1); chunk >= 1; chunk >>= 1) {
    for (let start = 0; start < best.choices.length; ) {
      const cut = [...best.choices.slice(0, start), ...best.choices.slice(start + chunk)];
      if (!(await attempt(best.faults, cut))) start += chunk;
    }
  }
  for (let i = 0; i < best.choices.length; i++) {
    while (best.choices[i] > 0) {
      const lower = [...best.choices];
      lower[i] = best.choices[i] - 1;
      if (!(await attempt(best.faults, lower))) break;
    }
  }
  const broken = best.result.invariants.find((i) => i.id === target)!;
  return {
    seed: failing.seed,
    faults: best.faults,
    choices: trimZeros(best.choices),
    steps: best.result.steps,
    invariant: target,
    detail: broken.detail,
    shrinkRuns: tries,
  };
}

/** Trailing zeros replay the same as none: drop them. */
function trimZeros(choices: number[]): number[] {
  let end = choices.length;
  while (end > 0 && choices[end - 1] === 0) end--;
  return choices.slice(0, end);
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
