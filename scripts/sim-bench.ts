/**
 * `npm run bench`: how fast the engine explores, and what it costs over the SQL itself.
 *
 * 1. Warms up (BENCH_WARMUP schedules, default 2,000: V8 keeps optimising the engine's JavaScript
 *    and PGlite's WebAssembly for about that long), timing the first N of them as the cold figure.
 *    Then explores `concurrent-redelivery` (solution) for N schedules in BENCH_ROUNDS rounds
 *    (default 3) and reports the median round's schedules per second, and every round's.
 * 2. Records every call the database received during each round (resets, clock updates and
 *    pipelined protocol messages included), replays exactly those calls back to back on the same
 *    PGlite, and reports engine time ÷ SQL time: the scheduler's overhead. Prints figures; asserts
 *    nothing. Named prepared statements are created during the warm-up, so the replay drops them
 *    and replays the warm-up's calls first, untimed, as the engine ran them.
 * 3. Explores the same N schedules again on W worker threads (./explore-parallel.ts, each thread
 *    with its own PGlite, warmed up the same way), timed from when every thread is ready to the last
 *    schedule: schedules per second across threads. W = BENCH_WORKERS, default min(cores, 4).
 *    The ratio stays a one-thread figure: engine time against the same SQL back to back.
 *
 * `npm run bench` runs this file bundled by esbuild (.bench/), as the browser runs the engine
 * bundled: under tsx every function gets a `__name` wrapper (its keepNames), ~5 % of a schedule.
 */
import { availableParallelism } from 'node:os';
import { PGlite, type ExecProtocolOptions } from '@electric-sql/pglite';
import { PGLITE_START_PARAMS } from '../simulations/pglite-start';
import { exploreParallel } from './explore-parallel';
import { FACTS_SELECT1_US, select1Micros } from './machine-speed.mjs';
import { drawFaults, runScenario } from '../simulations/run';
import { scenarioById } from '../simulations/scenarios/index';
import type { PgliteConnection } from '../simulations/pglite-statements';
import { PgliteSimDatabase } from '../simulations/sim-database';

type Recorded =
  | { kind: 'query'; text: string; params?: unknown[] }
  | { kind: 'exec'; text: string }
  | { kind: 'protocol'; message: Uint8Array; options?: ExecProtocolOptions };

/** Time spent inside PGlite while the engine ran. */
let insideSqlMs = 0;

async function timed<T>(p: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await p();
  } finally {
    insideSqlMs += performance.now() - t;
  }
}

/** PGlite as the engine sees it, every call logged and timed. */
function recordingPg(pg: PGlite, log: Recorded[]): PgliteConnection {
  return {
    query: <R>(text: string, params?: unknown[]) => {
      log.push({ kind: 'query', text, params });
      return timed(() => pg.query<R>(text, params));
    },
    exec: (text: string) => {
      log.push({ kind: 'exec', text });
      return timed(() => pg.exec(text));
    },
    execProtocol: (message: Uint8Array, options?: ExecProtocolOptions) => {
      log.push({ kind: 'protocol', message, options });
      return timed(() => pg.execProtocol(message, options));
    },
    runExclusive: <T>(fn: () => Promise<T>) => pg.runExclusive(fn),
    parsers: pg.parsers,
    serializers: pg.serializers,
  };
}

async function replay(pg: PGlite, calls: Recorded[]) {
  for (const s of calls) {
    if (s.kind === 'exec') await pg.exec(s.text);
    else if (s.kind === 'query') await pg.query(s.text, s.params);
    // The options the engine passed (errors as messages, no file-system sync): the very same call.
    else await pg.runExclusive(() => pg.execProtocol(s.message, { ...s.options, throwOnError: false }));
  }
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

async function main() {
  const runs = Number(process.argv[2] ?? 1000);
  const scenarioId = process.argv[3] ?? 'concurrent-redelivery';
  /** Untimed schedules before the rounds: V8 (the engine's JavaScript, PGlite's WebAssembly) keeps optimising for ~2,000. */
  const warmUpRuns = Number(process.env.BENCH_WARMUP ?? 2000);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const scenario = scenarioById(scenarioId);
  const code = scenario.variants.solution.code;
  const pg = new PGlite({ startParams: [...PGLITE_START_PARAMS] });
  const log: Recorded[] = [];
  const sim = await PgliteSimDatabase.open(recordingPg(pg, log));
  log.length = 0;

  // Warm up: compile the learner module, JIT the engine, fill PGlite's caches, prepare statements.
  // Its first `runs` schedules are timed as the cold figure: what an exploration right after boot sees.
  const coldRuns = Math.min(runs, warmUpRuns);
  let coldMs = 0;
  const w0 = performance.now();
  for (let i = 1; i <= warmUpRuns; i++) {
    await runScenario(sim, { scenario, code, variant: 'solution', seed: 1_000_000 + i, faults: drawFaults(scenario, i) });
    if (i === coldRuns) coldMs = performance.now() - w0;
  }
  const warmUp = log.splice(0);

  // Rounds of the same `runs` schedules (seeds 1…runs), each timed and recorded on its own.
  const measured: { engineMs: number; cpuMs: number; insideSqlMs: number; steps: number; calls: Recorded[] }[] = [];
  for (let r = 0; r < rounds; r++) {
    insideSqlMs = 0;
    let steps = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 1; i <= runs; i++) {
      const res = await runScenario(sim, { scenario, code, variant: 'solution', seed: i, faults: drawFaults(scenario, i) });
      steps += res.steps;
    }
    measured.push({ engineMs: performance.now() - t0, cpuMs: cpuMs(process.cpuUsage(c0)), insideSqlMs, steps, calls: log.splice(0) });
  }

  // The same calls back to back: the warm-up's untimed (it prepares the named statements), then each round's, timed.
  await pg.exec('DEALLOCATE ALL');
  await replay(pg, warmUp);
  const sql: { ms: number; cpuMs: number }[] = [];
  for (const m of measured) {
    const c1 = process.cpuUsage();
    const t1 = performance.now();
    await replay(pg, m.calls);
    sql.push({ ms: performance.now() - t1, cpuMs: cpuMs(process.cpuUsage(c1)) });
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
    /** The first `runs` schedules after boot, during the warm-up. */
    coldSchedulesPerSecond: Math.round((coldRuns / coldMs) * 1000),
    engineMs: perRound[mid].engineMs,
    sqlBackToBackMs: perRound[mid].sqlBackToBackMs,
    sqlInsideEngineMs: Math.round(m.insideSqlMs),
    ratio: perRound[mid].ratio,
    /** Schedules per second if the engine cost nothing beyond its SQL (the SQL replay alone). */
    sqlCeilingPerSecond: Math.round((runs / sql[mid].ms) * 1000),
    /** Median `SELECT 1` through PGlite.query on this machine, µs (FACTS.md: ~57 µs). */
    select1Us,
    // CPU time of this process: steadier than wall time when other processes share the cores.
    engineCpuMs: Math.round(m.cpuMs),
    sqlBackToBackCpuMs: Math.round(sql[mid].cpuMs),
    cpuRatio: perRound[mid].cpuRatio,
    perRound,
    rssMB: Math.round(mem.rss / 1e6),
    parallel: { workers: parallel.workers, schedulesPerSecond: parallel.schedulesPerSecond, cores: availableParallelism() },
    targets: { schedulesPerSecond: 1000, ratio: 1.3 },
  };
  const speeds = perRound.map((r) => r.schedulesPerSecond);
  console.log(
    `${scenarioId} bench: ${figures.schedulesPerSecond} schedules/s on one thread (target ≥ 1000; median of ${rounds} rounds of ${runs} after ${warmUpRuns} warm-up schedules; rounds ${Math.min(...speeds)}–${Math.max(...speeds)}; ${figures.coldSchedulesPerSecond}/s for the first ${coldRuns} after boot), engine/SQL ratio ${figures.ratio} (target ≤ 1.3); CPU: ${Math.round((runs / m.cpuMs) * 1000)} schedules per CPU-second, ratio ${figures.cpuRatio}; ${parallel.schedulesPerSecond} schedules/s on ${parallel.workers} worker threads (${availableParallelism()} cores)`,
  );
  console.log(
    `machine: SELECT 1 takes ${select1Us} µs here (FACTS.md measured ~${FACTS_SELECT1_US} µs); the SQL alone, back to back, allows ${figures.sqlCeilingPerSecond} schedules/s, so ≥ 1000/s needs a ratio ≤ ${(figures.sqlCeilingPerSecond / 1000).toFixed(2)} on this machine`,
  );
  console.log(JSON.stringify(figures, null, 2));
  process.stdout.on('error', () => {});
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
