/**
 * `npm run bench`: how fast the engine explores, and what it costs over the SQL itself.
 *
 * 1. Warms up (BENCH_WARMUP schedules, default 2,000: V8 keeps optimising the engine's JavaScript
 *    and PGlite's WebAssembly for about that long), timing the first N of them as the cold figure.
 *    Then explores `concurrent-redelivery` (solution) for N schedules in BENCH_ROUNDS rounds
 *    (default 3) and reports the median round's schedules per second, and every round's. The
 *    rounds are `explore()` itself (`verdictOnly` runs: no trace hash, no call site per statement;
 *    a host turn every few runs);
 *    each round is followed by the same N as full runs (what Run, Step and a replay do), reported
 *    beside it.
 * 2. Runs each round once more recording every call the database received (resets, clock updates
 *    and pipelined protocol messages included; logging costs a few per cent, so this pass is not
 *    the timed one), replays exactly those calls back to back on the same PGlite, and reports
 *    engine time ÷ SQL time: the scheduler's overhead. Prints figures; it only fails when the replay
 *    met different statement errors than the engine (it would not be the same SQL). The named
 *    statements the calls bind were prepared during the warm-up and are still there.
 * 3. Explores the same N schedules again on W worker threads (./explore-parallel.ts, each thread
 *    with its own PGlite, warmed up the same way), timed from when every thread is ready to the last
 *    schedule: schedules per second across threads. W = BENCH_WORKERS, default min(cores, 4).
 *    The ratio stays a one-thread figure: engine time against the same SQL back to back.
 *
 * `npm run bench` runs this file bundled by esbuild (.bench/), as the browser runs the engine
 * bundled: under tsx every function gets a `__name` wrapper (its keepNames), ~5 % of a schedule.
 */
import { availableParallelism } from 'node:os';
import { PGlite, type ExecProtocolOptions, type ExecProtocolOptionsStream } from '@electric-sql/pglite';
import { PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { exploreParallel } from './explore-parallel';
import { FACTS_SELECT1_US, select1Micros } from './machine-speed.mjs';
import { drawFaults, explore, runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { PgliteStatements, type Lead, type PgliteConnection } from '../simulations/db/pglite-statements';
import { PgliteSimDatabase } from '../simulations/db/pglite';
import { ResponseReader } from '../simulations/db/pg-wire-reader';

type Recorded =
  | { kind: 'query'; text: string; params?: unknown[] }
  | { kind: 'exec'; text: string }
  | { kind: 'protocol'; message: Uint8Array; options?: ExecProtocolOptions }
  /** A protocol call read raw (what the engine's statements send; ../simulations/pg-wire-reader.ts decodes it). */
  | { kind: 'raw'; message: Uint8Array };

/** Time spent inside PGlite while the engine ran (recorded rounds). */
let insideSqlMs = 0;
/** Whether calls are logged and timed; off, they go straight to PGlite (the timed rounds). */
let recording = false;

async function timed<T>(p: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await p();
  } finally {
    insideSqlMs += performance.now() - t;
  }
}

/** PGlite as the engine sees it; while `recording`, every call logged and timed. */
function recordingPg(pg: PGlite, log: Recorded[]): PgliteConnection {
  return {
    query: <R>(text: string, params?: unknown[]) => {
      if (!recording) return pg.query<R>(text, params);
      log.push({ kind: 'query', text, params });
      return timed(() => pg.query<R>(text, params));
    },
    exec: (text: string) => {
      if (!recording) return pg.exec(text);
      log.push({ kind: 'exec', text });
      if (statementDepth === 0) statements.push({ kind: 'exec', text });
      return timed(() => pg.exec(text));
    },
    execProtocol: (message: Uint8Array, options?: ExecProtocolOptions) => {
      if (!recording) return pg.execProtocol(message, options);
      log.push({ kind: 'protocol', message: message.slice(), options });
      return timed(async () => {
        const got = await pg.execProtocol(message, options);
        engineErrors += errorsIn(got.messages);
        return got;
      });
    },
    execProtocolRawStream: (message: Uint8Array, options: ExecProtocolOptionsStream) => {
      if (!recording) return pg.execProtocolRawStream(message, options);
      log.push({ kind: 'raw', message: message.slice() });
      return timed(async () => {
        const reader = new ResponseReader();
        await pg.execProtocolRawStream(message, { ...options, onRawData: (chunk) => (options.onRawData(chunk), reader.push(chunk)) });
        engineErrors += errorsIn(reader.messages);
      });
    },
    runExclusive: <T>(fn: () => Promise<T>) => pg.runExclusive(fn),
    parsers: pg.parsers,
    serializers: pg.serializers,
  };
}

/**
 * The same round, as statements: each one the engine ran (with the clock update sent ahead of it)
 * and each script, in order. Replayed through `PGlite.query`/`exec` one by one, which is how the
 * probe behind the 1.3 target ran "the same SQL back to back" (FACTS.md); the engine itself
 * sends each as one pipelined protocol call, prepared once.
 */
type Statement = { kind: 'statement'; text: string; params: readonly unknown[]; lead?: string | Lead } | { kind: 'exec'; text: string };
const statements: Statement[] = [];
let statementDepth = 0;
const engineQuery = PgliteStatements.prototype.query;
PgliteStatements.prototype.query = async function (this: PgliteStatements, text: string, params: readonly unknown[] = [], lead?: string | Lead) {
  // A statement prepared again after a DEALLOCATE calls itself once more: one statement.
  if (recording && statementDepth === 0) statements.push({ kind: 'statement', text, params, lead });
  statementDepth++;
  try {
    return await engineQuery.call(this, text, params, lead);
  } finally {
    statementDepth--;
  }
};

async function replayAsQueries(pg: PGlite, list: Statement[]): Promise<void> {
  // Errors are the engine's too (a starter's duplicate key): the replay goes on, as the run did.
  const quiet = (p: Promise<unknown>) => p.then(() => {}, () => {});
  for (const s of list) {
    if (s.kind === 'exec') await quiet(pg.exec(s.text));
    else {
      if (typeof s.lead === 'string') await quiet(pg.exec(s.lead));
      else if (s.lead) await quiet(pg.query(s.lead.text, [...s.lead.params]));
      await quiet(pg.query(s.text, [...s.params]));
    }
  }
}

/** Statement errors the engine's protocol calls got back (recorded rounds), to check the replay against. */
let engineErrors = 0;
const errorsIn = (messages: readonly { name: string }[]) => messages.filter((m) => m.name === 'error').length;

/** Replays `calls`; returns how many protocol calls came back with an error. */
async function replay(pg: PGlite, calls: Recorded[]): Promise<number> {
  let errors = 0;
  for (const s of calls) {
    if (s.kind === 'exec') await pg.exec(s.text);
    else if (s.kind === 'query') await pg.query(s.text, s.params);
    else if (s.kind === 'raw') {
      // As the statements make it: raw output, decoded by the same reader.
      const reader = new ResponseReader();
      await pg.runExclusive(() => pg.execProtocolRawStream(s.message, { syncToFs: false, onRawData: (chunk) => reader.push(chunk) }));
      errors += errorsIn(reader.messages);
    }
    // The options the engine passed (errors as messages, no file-system sync): the very same call.
    else errors += errorsIn((await pg.runExclusive(() => pg.execProtocol(s.message, { ...s.options, throwOnError: false }))).messages);
  }
  return errors;
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

async function main() {
  const runs = Number(process.argv[2] ?? 1000);
  const scenarioId = process.argv[3] ?? 'concurrent-redelivery';
  /** Untimed schedules before the rounds: V8 (the engine's JavaScript, PGlite's WebAssembly) keeps optimising for ~2,000. */
  const warmUpRuns = Number(process.env.BENCH_WARMUP ?? 2000);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const scenario = lessonById(scenarioId);
  const code = scenario.variants.solution.code;
  const pg = new PGlite({ startParams: [...PGLITE_START_PARAMS] });
  const log: Recorded[] = [];
  const sim = await PgliteSimDatabase.open(recordingPg(pg, log));
  const run = (seed: number, faultSeed: number, verdictOnly: boolean) =>
    runScenario(sim, { scenario, code, variant: 'solution', seed, faults: drawFaults(scenario, faultSeed), verdictOnly });

  // Warm up: compile the learner module, JIT the engine, fill PGlite's caches, prepare statements.
  // Its first `runs` schedules are timed as the cold figure: what an exploration right after boot sees.
  const coldRuns = Math.min(runs, warmUpRuns);
  let coldMs = 0;
  const w0 = performance.now();
  for (let i = 1; i <= warmUpRuns; i++) {
    // Mostly as Explore runs them; every fourth as a full run, so that path is warm too.
    await run(1_000_000 + i, i, i % 4 !== 0);
    if (i === coldRuns) coldMs = performance.now() - w0;
  }

  // Rounds of the same `runs` schedules (seeds 1…runs). Each round runs them three times: timed as
  // Explore runs them (the headline), recorded (every call PGlite got, for the ratio; logging and
  // timing each call costs a few per cent, so it is not in the headline), and timed as full runs.
  const measured: { engineMs: number; cpuMs: number; insideSqlMs: number; steps: number; calls: Recorded[]; errors: number; statements: Statement[] }[] = [];
  /** Wall ms of each round's full runs (trace hashed, call sites kept). */
  const fullMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let steps = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    // Explore itself: each seed's drawn plan, verdict-only runs, a host turn every few runs.
    const explored = await explore(sim, { scenario, code, variant: 'solution', runs, onProgress: (_d, _t, res) => void (steps += res.steps) });
    if (explored.runs !== runs) throw new Error(`explored ${explored.runs} of ${runs} schedules`);
    const engineMs = performance.now() - t0;
    const engineCpuMs = cpuMs(process.cpuUsage(c0));

    recording = true;
    insideSqlMs = 0;
    engineErrors = 0;
    await explore(sim, { scenario, code, variant: 'solution', runs });
    recording = false;
    measured.push({ engineMs, cpuMs: engineCpuMs, insideSqlMs, steps, calls: log.splice(0), errors: engineErrors, statements: statements.splice(0) });

    const f0 = performance.now();
    for (let i = 1; i <= runs; i++) await run(i, i, false);
    fullMs.push(performance.now() - f0);
  }

  // The same calls back to back, each round's timed. The named statements they bind were prepared
  // during the warm-up and are still there; the replay must meet the same statement errors the
  // engine met (none, for a solution), or it replayed something else.
  const sql: { ms: number; cpuMs: number }[] = [];
  for (const m of measured) {
    const c1 = process.cpuUsage();
    const t1 = performance.now();
    const errors = await replay(pg, m.calls);
    sql.push({ ms: performance.now() - t1, cpuMs: cpuMs(process.cpuUsage(c1)) });
    if (errors !== m.errors) throw new Error(`the replay met ${errors} statement errors, the engine ${m.errors}: it did not replay the same SQL`);
  }
  // The same statements once more, through PGlite's query API one by one (the probe's way).
  const asQueriesMs: number[] = [];
  for (const m of measured) {
    const t2 = performance.now();
    await replayAsQueries(pg, m.statements);
    asQueriesMs.push(performance.now() - t2);
  }

  const select1Us = await select1Micros(pg);
  const mem = process.memoryUsage();
  await pg.close();

  const workers = Number(process.env.BENCH_WORKERS ?? Math.min(availableParallelism(), 4));
  const parallel = await exploreParallel({ scenario, code, variant: 'solution', runs, workers, warmUp: warmUpRuns });

  const perRound = measured.map((m, k) => ({
    schedulesPerSecond: Math.round((runs / m.engineMs) * 1000),
    engineMs: Math.round(m.engineMs),
    sqlBackToBackMs: Math.round(sql[k].ms),
    ratio: +(m.engineMs / sql[k].ms).toFixed(2),
    cpuRatio: +(m.cpuMs / sql[k].cpuMs).toFixed(2),
    sqlAsQueriesMs: Math.round(asQueriesMs[k]),
    ratioVsQueries: +(m.engineMs / asQueriesMs[k]).toFixed(2),
  }));
  // The median round by speed, with its own ratio and SQL time (not medians taken apart).
  const mid = measured.indexOf([...measured].sort((a, b) => a.engineMs - b.engineMs)[Math.floor((measured.length - 1) / 2)]);
  const m = measured[mid];
  const figures = {
    scenario: scenarioId,
    runs,
    warmUp: warmUpRuns,
    rounds,
    stepsPerSchedule: +(m.steps / runs).toFixed(1),
    /** Round trips into PGlite per schedule (a pipelined statement with its clock update is one). */
    statementsPerSchedule: +(m.calls.length / runs).toFixed(1),
    /** The median round, after the warm-up. */
    schedulesPerSecond: perRound[mid].schedulesPerSecond,
    /** The same schedules as full runs (hashed, call sites kept: Run, Step, a replay), median round. */
    fullRunsPerSecond: Math.round((runs / [...fullMs].sort((a, b) => a - b)[Math.floor((fullMs.length - 1) / 2)]) * 1000),
    /** The first `runs` schedules after boot, during the warm-up. */
    coldSchedulesPerSecond: Math.round((coldRuns / coldMs) * 1000),
    engineMs: perRound[mid].engineMs,
    sqlBackToBackMs: perRound[mid].sqlBackToBackMs,
    sqlInsideEngineMs: Math.round(m.insideSqlMs),
    ratio: perRound[mid].ratio,
    /** The same statements through PGlite.query one by one, each parsed and planned (the probe's replay). */
    sqlAsQueriesMs: perRound[mid].sqlAsQueriesMs,
    /** Engine time ÷ that: the ratio as the probe behind the 1.3 target measured it. */
    ratioVsQueries: perRound[mid].ratioVsQueries,
    /** Schedules per second if the engine cost nothing beyond its SQL (the SQL replay alone). */
    sqlCeilingPerSecond: Math.round((runs / sql[mid].ms) * 1000),
    /** Median `SELECT 1` through PGlite.query on this machine, µs (FACTS.md: ~57 µs). */
    select1Us,
    // CPU time of this process: steadier than wall time when other processes share the cores.
    engineCpuMs: Math.round(m.cpuMs),
    sqlBackToBackCpuMs: Math.round(sql[mid].cpuMs),
    cpuRatio: perRound[mid].cpuRatio,
    perRound: perRound.map((p, k) => ({ ...p, fullRunsPerSecond: Math.round((runs / fullMs[k]) * 1000) })),
    rssMB: Math.round(mem.rss / 1e6),
    parallel: { workers: parallel.workers, schedulesPerSecond: parallel.schedulesPerSecond, cores: availableParallelism() },
    targets: { schedulesPerSecond: 1000, ratio: 1.3 },
  };
  const speeds = perRound.map((r) => r.schedulesPerSecond);
  console.log(
    `${scenarioId} bench: ${figures.schedulesPerSecond} schedules/s on one thread (target ≥ 1000; median of ${rounds} rounds of ${runs} after ${warmUpRuns} warm-up schedules; rounds ${Math.min(...speeds)}–${Math.max(...speeds)}; ${figures.coldSchedulesPerSecond}/s for the first ${coldRuns} after boot; ${figures.fullRunsPerSecond}/s as full runs), engine/SQL ratio ${figures.ratio} (target ≤ 1.3); CPU: ${Math.round((runs / m.cpuMs) * 1000)} schedules per CPU-second, ratio ${figures.cpuRatio}; ${parallel.schedulesPerSecond} schedules/s on ${parallel.workers} worker threads (${availableParallelism()} cores)`,
  );
  console.log(
    `machine: SELECT 1 takes ${select1Us} µs here (FACTS.md measured ~${FACTS_SELECT1_US} µs); the SQL alone, back to back, allows ${figures.sqlCeilingPerSecond} schedules/s, so ≥ 1000/s needs a ratio ≤ ${(figures.sqlCeilingPerSecond / 1000).toFixed(2)} on this machine`,
  );
  console.log(
    `the ratio above is against the exact protocol calls the engine made (each statement prepared once, bound and run in one call); against the same statements sent through PGlite.query one by one, as the probe behind the 1.3 target replayed them, the SQL takes ${figures.sqlAsQueriesMs} ms and the ratio is ${figures.ratioVsQueries}`,
  );
  console.log(JSON.stringify(figures, null, 2));
  process.stdout.on('error', () => {});
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
