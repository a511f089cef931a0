/**
 * `npm run bench`: how fast the engine explores, and what it costs over the SQL itself.
 *
 * 1. Explores `concurrent-redelivery` (solution) for N schedules and reports schedules per second.
 * 2. Records every call the database received during those schedules (resets, clock updates and
 *    pipelined protocol messages included), replays exactly those calls back to back on the same
 *    PGlite, and reports engine time ÷ SQL time: the scheduler's overhead. Prints figures; asserts
 *    nothing. Named prepared statements are created during the warm-up, so the replay drops them
 *    and replays the warm-up's calls first, untimed, as the engine ran them.
 * 3. Explores the same N schedules again on W worker threads (./explore-parallel.ts, each thread
 *    with its own PGlite, warmed up the same way), timed from when every thread is ready to the last
 *    schedule: schedules per second across threads. W = BENCH_WORKERS, default min(cores, 4).
 *    The ratio stays a one-thread figure: engine time against the same SQL back to back.
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

async function main() {
  const runs = Number(process.argv[2] ?? 1000);
  const scenarioId = process.argv[3] ?? 'concurrent-redelivery';
  const scenario = scenarioById(scenarioId);
  const code = scenario.variants.solution.code;
  const pg = new PGlite({ startParams: [...PGLITE_START_PARAMS] });
  const log: Recorded[] = [];
  const sim = await PgliteSimDatabase.open(recordingPg(pg, log));
  log.length = 0;

  // Warm up: compile the learner module, JIT the engine, fill PGlite's caches, prepare statements.
  for (let i = 1; i <= 50; i++) await runScenario(sim, { scenario, code, variant: 'solution', seed: 1_000_000 + i, faults: drawFaults(scenario, i) });

  const warmUpCalls = log.length;
  insideSqlMs = 0;
  let steps = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 1; i <= runs; i++) {
    const r = await runScenario(sim, { scenario, code, variant: 'solution', seed: i, faults: drawFaults(scenario, i) });
    steps += r.steps;
  }
  const engineMs = performance.now() - t0;
  const engineCpu = process.cpuUsage(c0);
  const measured = log.splice(warmUpCalls);
  const warmUp = log.splice(0);

  await pg.exec('DEALLOCATE ALL');
  await replay(pg, warmUp);
  const c1 = process.cpuUsage();
  const t1 = performance.now();
  await replay(pg, measured);
  const sqlMs = performance.now() - t1;
  const sqlCpu = process.cpuUsage(c1);
  const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

  const select1Us = await select1Micros(pg);

  const mem = process.memoryUsage();
  await pg.close();

  const workers = Number(process.env.BENCH_WORKERS ?? Math.min(availableParallelism(), 4));
  const parallel = await exploreParallel({ scenario, code, variant: 'solution', runs, workers, warmUp: 50 });

  const figures = {
    scenario: scenarioId,
    runs,
    stepsPerSchedule: +(steps / runs).toFixed(1),
    /** Round trips into PGlite per schedule (a pipelined statement with its clock update is one). */
    statementsPerSchedule: +(measured.length / runs).toFixed(1),
    schedulesPerSecond: Math.round((runs / engineMs) * 1000),
    engineMs: Math.round(engineMs),
    sqlBackToBackMs: Math.round(sqlMs),
    sqlInsideEngineMs: Math.round(insideSqlMs),
    ratio: +(engineMs / sqlMs).toFixed(2),
    /** Schedules per second if the engine cost nothing beyond its SQL (the SQL replay alone). */
    sqlCeilingPerSecond: Math.round((runs / sqlMs) * 1000),
    /** Median `SELECT 1` through PGlite.query on this machine, µs (FACTS.md: ~57 µs). */
    select1Us,
    // CPU time of this process: steadier than wall time when other processes share the cores.
    engineCpuMs: Math.round(cpuMs(engineCpu)),
    sqlBackToBackCpuMs: Math.round(cpuMs(sqlCpu)),
    cpuRatio: +(cpuMs(engineCpu) / cpuMs(sqlCpu)).toFixed(2),
    rssMB: Math.round(mem.rss / 1e6),
    parallel: { workers: parallel.workers, schedulesPerSecond: parallel.schedulesPerSecond, cores: availableParallelism() },
    targets: { schedulesPerSecond: 1000, ratio: 1.3 },
  };
  console.log(
    `${scenarioId} bench: ${figures.schedulesPerSecond} schedules/s on one thread (target ≥ 1000), engine/SQL ratio ${figures.ratio} (target ≤ 1.3); CPU: ${Math.round((runs / cpuMs(engineCpu)) * 1000)} schedules per CPU-second, ratio ${figures.cpuRatio}; ${parallel.schedulesPerSecond} schedules/s on ${parallel.workers} worker threads (${availableParallelism()} cores)`,
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
