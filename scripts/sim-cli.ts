/**
 * The command line: `npm run -s sim -- <list | run | explore | replay> …`. Node-only entry point.
 * Every run prints its seed first and, on a violation, the exact command that replays it.
 *
 * Why one file of ~500 lines: the command line's four commands share one argument parser and
 * one way of printing results; the work itself is simulations/'s.
 */
import { readFileSync } from 'node:fs';
import { describeFault, parseFaultPlan } from '../simulations/engine/faults';
import { explore, runScenario, type ExploreResult, type RunResult } from '../simulations/run/run';
import { failureText } from '../simulations/run/failure';
import type { Scenario } from '../simulations/lessons/kit/scenario';
import { LESSONS, lessonById } from '../simulations/lessons/index';
import type { SimDatabase } from '../simulations/db/port';
import { shellQuote, shellWord } from '../simulations/course/shell-quote';
import { MAX_SEED } from '../simulations/course/share-link';
import { formatSimTime } from '../simulations/engine/sim-time';
import { codeHashOf, TRACE_EXPORT_FORMAT, TRACE_EXPORT_VERSION, type TraceExport } from '../simulations/run/trace-export';
import type { Fault } from '../simulations/engine/types';
import { hardenRealm } from '../simulations/learner/realm';
import { reportUnhandledRejections, startWatchdog } from './cli-watchdog';
import { defaultWorkers, exploreParallel, type StuckCode } from './explore-parallel';
import { openSimPglite } from './node-pglite';

/** How long the CLI waits on learner code that never gives the thread back (`while (true) {}`). */
const STUCK_CODE_MS = 10_000;

const USAGE = `Effectively Once — simulator

  npm run -s sim -- list [--json]
  npm run -s sim -- run <scenario> --variant <starter|solution|path.ts> --seed N
                     [--faults plan.json | --faults '[…]'] [--choices 0,1,2] [--db URL] [--json] [--trace]
  npm run -s sim -- explore <scenario> --variant <starter|solution|path.ts> --runs N
                     [--seed FIRST] [--workers N] [--db URL] [--json]
  npm run -s sim -- replay <run.trace.json> [--variant path.ts] [--db URL] [--json] [--trace]

  --faults    a JSON fault plan (a file, or inline); default: the scenario's demonstration plan
  --choices   replay a recorded schedule (comma-separated indices)
  --trace     print every step's narration (run, human output)
  --workers N explore on N threads, each with its own PGlite (~0.5 GB each); the result is the same
              for every N. Default: min(cores, 4) from 2000 schedules on, else 1. Not with --db.
  replay      rerun a trace the lab exported (its scenario, code, seed, faults and choices) and
              say whether the trace hash is the same; exit 1 when it is not. --variant gives the
              code when the export has none
  --db URL    run on a real PostgreSQL (postgres://…; one connection per process) instead of PGlite;
              the simulation empties its tables, so point it at a database of its own
`;

class UsageError extends Error {}

const SEE_HELP = 'usage: npm run -s sim -- --help';

interface Args {
  positional: string[];
  flags: Map<string, string | true>;
}

const VALUE_FLAGS = new Set(['variant', 'seed', 'faults', 'choices', 'runs', 'db', 'workers']);
const BOOL_FLAGS = new Set(['json', 'trace', 'help']);

/** The options each command reads: any other is refused, not silently ignored. */
const COMMAND_FLAGS: Record<string, ReadonlySet<string>> = {
  list: new Set(['json', 'help']),
  run: new Set(['variant', 'seed', 'faults', 'choices', 'db', 'json', 'trace', 'help']),
  explore: new Set(['variant', 'seed', 'runs', 'workers', 'db', 'json', 'help']),
  replay: new Set(['variant', 'db', 'json', 'trace', 'help']),
};

/** Refuse an option the command does not read (`run … --runs 5` would otherwise run once, quietly). */
function checkFlagsFor(command: string, args: Args): void {
  const allowed = COMMAND_FLAGS[command];
  if (!allowed) return;
  for (const name of args.flags.keys()) {
    if (allowed.has(name)) continue;
    const owners = Object.keys(COMMAND_FLAGS).filter((c) => COMMAND_FLAGS[c]!.has(name));
    throw new UsageError(`--${name} is not an option of ${command}${owners.length ? ` (it belongs to ${owners.join(' and ')})` : ''}`);
  }
}

/** --seed, in the range the lab and share links take (the engine's generator reads 32 bits). */
function seedFlag(args: Args, fallback: number, runs = 1): number {
  const seed = intFlag(args, 'seed', fallback);
  if (seed < 0 || seed + runs - 1 > MAX_SEED) {
    throw new UsageError(runs > 1 ? `--seed and --runs must keep every seed from 0 to ${MAX_SEED}` : `--seed must be from 0 to ${MAX_SEED}`);
  }
  return seed;
}

function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split(/=(.*)/s, 2);
      if (BOOL_FLAGS.has(name)) flags.set(name, true);
      else if (VALUE_FLAGS.has(name)) {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new UsageError(`--${name} needs a value`);
        flags.set(name, v);
      } else throw new UsageError(`unknown option --${name}`);
    } else positional.push(a);
  }
  return { positional, flags };
}

function intFlag(args: Args, name: string, fallback?: number): number {
  const v = args.flags.get(name);
  if (v === undefined || v === true) {
    if (fallback === undefined) throw new UsageError(`--${name} N is required`);
    return fallback;
  }
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, not "${v}"`);
  return Number(v);
}

function variantSource(scenario: Scenario, variant: string): string {
  if (variant === 'starter' || variant === 'solution') return scenario.variants[variant].code;
  try {
    return readFileSync(variant, 'utf8');
  } catch {
    throw new UsageError(`--variant must be starter, solution or a readable .ts file; cannot read "${variant}"`);
  }
}

function faultsFlag(args: Args): Fault[] | undefined {
  const v = args.flags.get('faults');
  if (v === undefined || v === true) return undefined;
  // Inline JSON (a plan is an array; an object is a mistake parseFaultPlan explains), else a file.
  let text = v;
  if (!/^\s*[[{]/.test(v)) {
    try {
      text = readFileSync(v, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(`--faults takes a JSON plan or a file holding one; cannot read "${v}"${code === 'ENOENT' ? ': no such file' : code === 'EISDIR' ? ': it is a directory' : ''}`);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--faults is not valid JSON: ${(err as Error).message}`);
  }
  return parseFaultPlan(json);
}

function choicesFlag(args: Args): number[] | undefined {
  const v = args.flags.get('choices');
  if (v === undefined || v === true) return undefined;
  if (v.trim() === '') return [];
  const parts = v.split(',');
  if (!parts.every((p) => /^\d+$/.test(p.trim()))) throw new UsageError('--choices is a comma-separated list of whole numbers');
  return parts.map((p) => Number(p));
}

/**
 * The command that reruns exactly this schedule: every word quoted for the shell, the choices given
 * whenever the schedule had them recorded (an empty list is a schedule too: shrinking lowers choices
 * to the defaults, and without --choices the seed would draw its own), left out (`null`) when the
 * seed drew them, as an explored schedule's own do, and the database it ran on, without its password.
 */
function replayCommand(r: { scenario: string; variant: string; seed: number; faults: Fault[]; choices: number[] | null }, dbUrl?: string): string {
  const words = ['npm run -s sim -- run', shellWord(r.scenario), '--variant', shellWord(r.variant), '--seed', String(r.seed)];
  words.push('--faults', shellQuote(JSON.stringify(r.faults)));
  if (r.choices) words.push('--choices', r.choices.length ? r.choices.join(',') : "''");
  return [...words, ...dbWords(dbUrl)].join(' ');
}

/** `--db <url>` for a replay line, without the password; nothing for PGlite. */
function dbWords(dbUrl: string | undefined): string[] {
  return dbUrl ? ['--db', shellWord(withoutPassword(dbUrl))] : [];
}

/** A database URL fit to print: the password left out (node-postgres then reads PGPASSWORD or ~/.pgpass). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '';
    return u.toString().replace(/:@/, '@');
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1@');
  }
}

function publicRun(r: RunResult) {
  return {
    scenario: r.scenario,
    variant: r.variant,
    seed: r.seed,
    faults: r.faults,
    faultEvents: r.faultEvents,
    choices: r.choices,
    traceHash: r.traceHash,
    steps: r.steps,
    verdict: r.verdict,
    invariants: r.invariants.map((i) => ({ id: i.id, held: i.held, detail: i.detail, ...(i.step !== undefined ? { step: i.step } : {}) })),
    effects: r.effects,
    simulatedMs: r.durationMs,
    ending: r.ending,
    ...(r.endingDetail ? { endingDetail: r.endingDetail } : {}),
    ...(r.error ? { error: r.error } : {}),
    codeErrors: r.codeErrors,
  };
}

async function openDb(args: Args): Promise<SimDatabase & { close?(): Promise<void> }> {
  const url = args.flags.get('db');
  if (url === undefined || url === true) return openSimPglite();
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError('--db takes a postgres:// URL');
  // Node-only and heavy: loaded only when asked for.
  const { PostgresSimDatabase } = await import('../simulations/db/postgres');
  try {
    return await PostgresSimDatabase.open(url);
  } catch (err) {
    throw new UsageError(`cannot use ${withoutPassword(url)}: ${(err as Error).message}`);
  }
}

function dbFlag(args: Args): string | undefined {
  const url = args.flags.get('db');
  return typeof url === 'string' ? url : undefined;
}

function out(line = '') {
  process.stdout.write(`${line}\n`);
}

/**
 * A learner's code may loop without ever awaiting: stop the command then, with a message, as the
 * browser's sandbox would, rather than hang. (Our own starters and solutions never do.) Watched
 * from the moment the database is up: PGlite's boot holds the thread itself (initdb is one
 * synchronous call), for seconds on a loaded machine, and that is not the learner's code.
 */
function watchCode(variant: string): void {
  const stuck = stuckCode(variant);
  if (stuck) startWatchdog(stuck.limitMs, stuck.message);
}

/** What a watchdog of learner code in `variant` waits and says; null for the lessons' own code. */
function stuckCode(variant: string): StuckCode | null {
  if (variant === 'starter' || variant === 'solution') return null;
  return {
    limitMs: STUCK_CODE_MS,
    message: `error: your code in ${variant} ran for ${STUCK_CODE_MS / 1000} s without giving the thread back — an endless loop with no await? The command was stopped.`,
  };
}

/**
 * `replay <file>`: rerun a run the lab exported — its scenario, code, seed, faults and choices —
 * and say whether it came out the same (the trace hash). A learner's own code travels in the
 * export; `--variant file.ts` gives it for an export that has none, or tries other code on the
 * same schedule.
 */
async function replayExport(args: Args): Promise<number> {
  const file = args.positional[1];
  if (!file) throw new UsageError('replay needs a trace file: the JSON the lab downloads ("Download trace (JSON)")');
  let doc: Partial<TraceExport>;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as Partial<TraceExport>;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(code ? `cannot read "${file}"${code === 'ENOENT' ? ': no such file' : ''}` : `"${file}" is not valid JSON: ${(err as Error).message}`);
  }
  if (doc?.format !== TRACE_EXPORT_FORMAT) throw new UsageError(`"${file}" is not a trace the lab exported (its "format" is not "${TRACE_EXPORT_FORMAT}")`);
  if (doc.version !== TRACE_EXPORT_VERSION) throw new UsageError(`"${file}" is trace format version ${String(doc.version)}; this simulator reads version ${TRACE_EXPORT_VERSION}`);
  let scenario: Scenario;
  try {
    scenario = lessonById(String(doc.scenario));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (typeof doc.seed !== 'number' || !Number.isInteger(doc.seed) || doc.seed < 0 || doc.seed > MAX_SEED) throw new UsageError(`the trace's seed is not a seed from 0 to ${MAX_SEED}`);
  if (!Array.isArray(doc.choices) || !doc.choices.every((c) => Number.isInteger(c) && c >= 0)) throw new UsageError("the trace's choices are not a list of whole numbers");
  const faults = parseFaultPlan(doc.faults);
  const given = args.flags.get('variant');
  let variant: string;
  let code: string;
  /** Why the export's code is not the code that made its trace, when it is not. */
  let modified: string | null = null;
  if (typeof given === 'string') {
    variant = given;
    code = variantSource(scenario, given);
  } else if (doc.variant === 'starter' || doc.variant === 'solution') {
    variant = doc.variant;
    code = variantSource(scenario, variant);
  } else if (typeof doc.code === 'string') {
    variant = String(doc.variant ?? 'your code');
    code = doc.code;
    // The export's code is untrusted input: it runs in the learner's realm like any other, and a
    // reproduction counts only for the code the export's hash names.
    if (doc.codeHash !== codeHashOf(code)) {
      modified = typeof doc.codeHash === 'string' ? 'the code in the export was modified after it was exported (it no longer hashes to its codeHash)' : 'the export carries code but no codeHash, so it cannot say this code made its trace';
    }
  } else {
    throw new UsageError(`the trace ran ${JSON.stringify(doc.variant)} and holds no code: pass --variant path.ts with the code that ran`);
  }
  const json = args.flags.has('json');
  if (!json) {
    out(`seed ${doc.seed} · ${scenario.id} · variant ${variant} · replaying ${file}${args.flags.has('db') ? ' · on PostgreSQL' : ''}`);
    out(`faults: ${faults.length ? faults.map(describeFault).join('; ') : 'none'} · ${doc.choices.length} recorded choices`);
  }
  const db = await openDb(args);
  watchCode(variant);
  const r = await runScenario(db, { scenario, code, variant, seed: doc.seed, faults, choices: doc.choices });
  await db.close?.();
  // Other code on purpose (--variant): a run on the exported schedule, not a reproduction.
  const otherCode = typeof given === 'string';
  const reproduced = otherCode ? null : modified === null && r.traceHash === doc.traceHash;
  const again = ['npm run -s sim -- replay', shellWord(file), ...(otherCode ? ['--variant', shellWord(given)] : []), ...dbWords(dbFlag(args))].join(' ');
  const status = reportRun(r, args, { replayOf: file, exportedTraceHash: doc.traceHash ?? null, reproduced, ...(modified ? { modified } : {}) }, again);
  if (json) return status !== 0 ? status : reproduced === false ? 1 : 0;
  if (r.error) {
    out(otherCode ? 'nothing ran on the exported schedule.' : 'NOT reproduced: the code did not load, so nothing ran.');
    return 1;
  }
  if (otherCode) {
    out(`other code on the exported schedule: ${r.verdict.toUpperCase()} (the exported run ended ${String(doc.verdict)})`);
    return status;
  }
  const ended = doc.verdict && doc.verdict !== r.verdict ? ` (it ended ${doc.verdict}, this run ${r.verdict})` : '';
  if (modified) {
    out(`NOT reproduced: ${modified}${ended}`);
    return 1;
  }
  out(
    reproduced
      ? `reproduced: the same trace hash as the export (${r.traceHash.slice(0, 16)})`
      : `NOT reproduced: the export's trace hash was ${String(doc.traceHash).slice(0, 16)}, this run's is ${r.traceHash.slice(0, 16)} — the code, the simulator or the database is not the one that made the trace${ended}`,
  );
  return status !== 0 ? status : reproduced ? 0 : 1;
}

/**
 * Print a run (JSON or the human report); its exit code. `replayLine` is the command that reruns it
 * (default: `run` with the run's own flags).
 */
function reportRun(r: RunResult, args: Args, extra: Record<string, unknown> = {}, replayLine = replayCommand(r, dbFlag(args))): number {
  if (args.flags.has('json')) {
    out(JSON.stringify({ ...publicRun(r), ...extra }, null, 2));
    return r.verdict === 'error' ? 1 : 0;
  }
  if (r.error) {
    out(`\nyour code did not load: ${r.error.message}${r.error.line ? ` (line ${r.error.line})` : ''}`);
    return 1;
  }
  if (args.flags.has('trace')) {
    out('');
    for (const e of r.trace) out(`${String(e.i).padStart(4)} ${formatSimTime(e.t).padStart(17)}  ${e.text}`);
  }
  out('');
  // Events count from 1, as the lab numbers them ("Show event 21"); steps are the scheduler's.
  for (const i of r.invariants) out(`${i.held ? '✓' : '✗'} ${i.title}: ${i.detail}${!i.held && i.step !== undefined ? ` (event ${i.step + 1})` : ''}`);
  for (const e of r.codeErrors) out(`! ${e.process}: ${e.message}${e.line ? ` (line ${e.line})` : ''}`);
  out(`\n${r.verdict.toUpperCase()} after ${r.steps} steps, ${formatSimTime(r.durationMs)} simulated · trace ${r.traceHash.slice(0, 16)}`);
  out(`effects: ${Object.entries(r.effects).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  const idle = r.faults.filter((_, i) => r.faultEvents[i] === null);
  if (idle.length) out(`never took effect: ${idle.map(describeFault).join('; ')}`);
  if (r.verdict === 'violated') out(`replay: ${replayLine}`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const [command, scenarioId] = args.positional;
  const json = args.flags.has('json');
  if (!command || args.flags.has('help')) {
    out(USAGE);
    return args.flags.has('help') ? 0 : 2;
  }

  checkFlagsFor(command, args);
  if (command === 'list') {
    const list = LESSONS.map((s) => ({ id: s.id, title: s.title, variants: ['starter', 'solution'] }));
    if (json) out(JSON.stringify(list, null, 2));
    else for (const s of LESSONS) out(`${s.id.padEnd(24)} ${s.title}`);
    return 0;
  }

  if (command === 'replay') return replayExport(args);
  if (command !== 'run' && command !== 'explore') throw new UsageError(`unknown command "${command}"`);
  if (!scenarioId) throw new UsageError(`${command} needs a scenario: ${LESSONS.map((s) => s.id).join(', ')}`);
  let scenario: Scenario;
  try {
    scenario = lessonById(scenarioId);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const variant = String(args.flags.get('variant') ?? 'starter');
  const code = variantSource(scenario, variant);
  // Once, from the moment the database is up (see watchCode).
  let watching = false;
  const watchLearnerCode = () => {
    if (watching) return;
    watching = true;
    watchCode(variant);
  };

  if (command === 'run') {
    const seed = seedFlag(args, scenario.demo.seed);
    const faults = faultsFlag(args) ?? scenario.demo.faults;
    const choices = choicesFlag(args);
    if (!json) {
      out(`seed ${seed} · ${scenario.id} · variant ${variant}${args.flags.has('db') ? ' · on PostgreSQL' : ''}`);
      out(`faults: ${faults.length ? faults.map(describeFault).join('; ') : 'none'}`);
    }
    const db = await openDb(args);
    watchLearnerCode();
    const r = await runScenario(db, { scenario, code, variant, seed, faults, choices });
    await db.close?.();
    return reportRun(r, args);
  }

  const runs = intFlag(args, 'runs', 200);
  if (runs < 1 || runs > 1_000_000) throw new UsageError('--runs must be between 1 and 1000000');
  const firstSeed = seedFlag(args, 1, runs);
  const onDb = args.flags.has('db');
  const workers = intFlag(args, 'workers', onDb ? 1 : defaultWorkers(runs));
  if (workers < 1 || workers > 64) throw new UsageError('--workers must be between 1 and 64');
  if (onDb && workers > 1) throw new UsageError('--workers > 1 needs PGlite: every worker empties the tables of the database it runs on');
  if (!json) out(`seeds ${firstSeed}…${firstSeed + runs - 1} · ${scenario.id} · variant ${variant} · ${runs} schedules${workers > 1 ? ` · ${workers} threads` : ''}`);
  let lastPrint = 0;
  const onProgress = (done: number, total: number) => {
    if (!json && process.stderr.isTTY && (done - lastPrint >= 50 || done === total)) {
      lastPrint = done;
      process.stderr.write(`\r${done}/${total}`);
    }
  };
  let result: ExploreResult & { workers: number };
  if (workers > 1) {
    // Each thread watches itself once its database is up; this one only waits for them.
    result = await exploreParallel({ scenario, code, variant, runs, firstSeed, workers, onProgress, stuckCode: stuckCode(variant) ?? undefined });
  } else {
    const db = await openDb(args);
    watchLearnerCode();
    result = { ...(await explore(db, { scenario, code, variant, runs, firstSeed, hostNow: () => performance.now(), onProgress })), workers: 1 };
    await db.close?.();
  }
  if (!json && process.stderr.isTTY) process.stderr.write('\r');
  // Code that does not load explores nothing: say why and fail, rather than tick every invariant.
  if (result.errors) {
    if (json) {
      out(JSON.stringify(result, null, 2));
      return 1;
    }
    const db = await openDb(args);
    const first = await runScenario(db, { scenario, code, variant, seed: firstSeed, faults: [] });
    await db.close?.();
    out(`\nyour code did not load, so nothing was explored: ${first.error?.message ?? 'see `run` for the error'}${first.error?.line ? ` (line ${first.error.line})` : ''}`);
    return 1;
  }
  if (json) {
    out(JSON.stringify(result, null, 2));
    return 0;
  }
  out(`${result.violations} of ${result.runs} schedules violated an invariant (${result.schedulesPerSecond ?? '?'} schedules/s)`);
  for (const [id, n] of Object.entries(result.byInvariant)) out(`  ${n ? '✗' : '✓'} ${id}: ${n}`);
  out('outcomes:');
  for (const [k, n] of Object.entries(result.histogram)) out(`  ${String(n).padStart(6)}  ${k}`);
  const failed = result.firstFailure;
  if (failed) {
    out(`\nyour code failed in ${result.failures} of ${result.runs} schedules, so this exploration is not clean whatever the invariants say`);
    out(`  first in seed ${failed.seed}: ${failed.process}${failed.line ? ` (line ${failed.line})` : ''} ${failureText(failed)}`);
    // The schedule's choices are the ones its seed draws: the line leaves them to the seed.
    out(`replay: ${replayCommand({ scenario: scenario.id, variant, seed: failed.seed, faults: failed.faults, choices: null }, dbFlag(args))}`);
  }
  const cx = result.counterexample;
  if (cx) {
    out(`\nsmallest counterexample (${cx.shrinkRuns} shrinking runs): ${cx.invariant} — ${cx.detail}`);
    out(`  seed ${cx.seed}, ${cx.faults.length} fault${cx.faults.length === 1 ? '' : 's'}: ${cx.faults.map(describeFault).join('; ') || 'none'}; ${cx.steps} steps`);
    out(`replay: ${replayCommand({ scenario: scenario.id, variant, seed: cx.seed, faults: cx.faults, choices: cx.choices }, dbFlag(args))}`);
  }
  return 0;
}

// If the engine ever stopped without settling (nothing left on the event loop, no verdict), say so
// and fail, rather than letting Node exit 0 as if the run had succeeded.
let settled = false;
process.on('beforeExit', () => {
  if (settled) return;
  process.stderr.write('error: the simulation stopped without reaching a verdict (nothing was left to run). This is an engine bug: the command above reproduces it.\n');
  process.exit(70);
});

// Learner code, whether from --variant or from a received export, runs in its own realm
// (simulations/learner/realm.ts): SES lockdown first, before any of it is read.
hardenRealm();
reportUnhandledRejections();

main(process.argv.slice(2)).then(
  (code) => {
    settled = true;
    // A run settles through microtasks only: Node reports rejections left unhandled once they
    // drain, so exit a turn later, after those reports.
    setImmediate(() => process.exit(code));
  },
  (err: unknown) => {
    settled = true;
    if (err instanceof UsageError || (err as Error)?.name === 'FaultPlanError') {
      process.stderr.write(`error: ${(err as Error).message}\n${SEE_HELP}\n`);
      process.exit(2);
    }
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
