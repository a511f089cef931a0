/**
 * `npm run bench`: how fast the engine explores, and what it costs over the SQL itself.
 *
 * 1. Explores `concurrent-redelivery` (solution) for N schedules and reports schedules per second.
 * 2. Records every statement the database received during those schedules (resets and clock
 *    updates included), replays exactly those statements back to back on the same PGlite, and
 *    reports engine time ÷ SQL time: the scheduler's overhead. Prints figures; asserts nothing.
 */
import { PGlite } from '@electric-sql/pglite';
import { drawFaults, runScenario } from '../simulations/run';
import { scenarioById } from '../simulations/scenarios/index';
import { PgliteSimDatabase } from '../simulations/sim-database';

interface Recorded {
  kind: 'query' | 'exec';
  text: string;
  params?: unknown[];
}

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

function recordingPg(pg: PGlite, log: Recorded[]) {
  return {
    query: <R>(text: string, params?: unknown[]) => {
      log.push({ kind: 'query', text, params });
      return timed(() => pg.query<R>(text, params));
    },
    exec: (text: string) => {
      log.push({ kind: 'exec', text });
      return timed(() => pg.exec(text));
    },
  };
}

async function main() {
  const runs = Number(process.argv[2] ?? 1000);
  const scenarioId = process.argv[3] ?? 'concurrent-redelivery';
  const scenario = scenarioById(scenarioId);
  const code = scenario.variants.solution.code;
  const pg = new PGlite();
  const log: Recorded[] = [];
  let recording = false;
  const base = recordingPg(pg, log);
  const db = await PgliteSimDatabase.open({
    query: (t, p) => (recording ? base.query(t, p) : pg.query(t, p)),
    exec: (t) => (recording ? base.exec(t) : pg.exec(t)),
  } as Pick<PGlite, 'query' | 'exec'>);

  // Warm up: compile the learner module, JIT the engine, fill PGlite's caches.
  for (let i = 1; i <= 50; i++) await runScenario(db, { scenario, code, variant: 'solution', seed: 1_000_000 + i, faults: drawFaults(scenario, i) });

  recording = true;
  let steps = 0;
  const t0 = performance.now();
  for (let i = 1; i <= runs; i++) {
    const r = await runScenario(db, { scenario, code, variant: 'solution', seed: i, faults: drawFaults(scenario, i) });
    steps += r.steps;
  }
  const engineMs = performance.now() - t0;
  recording = false;

  const t1 = performance.now();
  for (const s of log) {
    if (s.kind === 'exec') await pg.exec(s.text);
    else await pg.query(s.text, s.params);
  }
  const sqlMs = performance.now() - t1;

  const mem = process.memoryUsage();
  const figures = {
    scenario: scenarioId,
    runs,
    stepsPerSchedule: +(steps / runs).toFixed(1),
    statementsPerSchedule: +(log.length / runs).toFixed(1),
    schedulesPerSecond: Math.round((runs / engineMs) * 1000),
    engineMs: Math.round(engineMs),
    sqlBackToBackMs: Math.round(sqlMs),
    sqlInsideEngineMs: Math.round(insideSqlMs),
    ratio: +(engineMs / sqlMs).toFixed(2),
    rssMB: Math.round(mem.rss / 1e6),
    targets: { schedulesPerSecond: 1000, ratio: 1.3 },
  };
  console.log(`concurrent-redelivery bench: ${figures.schedulesPerSecond} schedules/s (target ≥ 1000), engine/SQL ratio ${figures.ratio} (target ≤ 1.3)`);
  console.log(JSON.stringify(figures, null, 2));
  process.stdout.on('error', () => {});
  await pg.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
