/**
 * One thread of a parallel exploration (./explore-parallel.ts): its own PGlite, the scenario's
 * schedules for the seeds it is asked for, and the shrinking of a counterexample when asked.
 * A thread is a realm of its own: it locks itself down before any learner code runs, and watches
 * itself for learner code that never gives the thread back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { bootPrebuilt } from '../components/db/prebuilt-datadir';
import { drawFaults, exploreSeed, runScenario, shrinkSeed, summarize } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { PgliteSimDatabase } from '../simulations/db/pglite';
import { hardenRealm } from '../simulations/learner/realm';
import { reportUnhandledRejections, startWatchdog } from './cli-watchdog';
import type { WorkerData, WorkerReply, WorkerRequest } from './explore-parallel';

hardenRealm();
reportUnhandledRejections();

const port = parentPort!;
const data = workerData as WorkerData;
const post = (m: WorkerReply) => port.postMessage(m);

async function main() {
  const scenario = lessonById(data.scenarioId);
  const opts = { scenario, code: data.code, variant: data.variant };
  const prebuilt = await fromPrebuilt();
  const db = prebuilt ? await PgliteSimDatabase.attach(prebuilt) : await PgliteSimDatabase.open(new PGlite({ startParams: [...PGLITE_START_PARAMS] }));
  // From the moment the database is up: PGlite's boot holds the thread itself, and is not learner code.
  if (data.stuckCode) startWatchdog(data.stuckCode.limitMs, data.stuckCode.message);
  for (let i = 1; i <= data.warmUp; i++) {
    await runScenario(db, { ...opts, seed: 1_000_000 + i, faults: drawFaults(scenario, i), verdictOnly: true });
  }
  port.on('message', async (m: WorkerRequest) => {
    try {
      if (m.type === 'run') {
        const summaries = [];
        for (let k = 0; k < m.count; k++) summaries.push(summarize(await exploreSeed(db, opts, m.firstSeed + k)));
        post({ type: 'ran', summaries });
      } else {
        post({ type: 'shrunk', counterexample: await shrinkSeed(db, { ...opts, runs: 1, shrinkBudget: m.shrinkBudget }, m.seed) });
      }
    } catch (err) {
      post({ type: 'error', message: (err as Error)?.message ?? String(err), stack: (err as Error)?.stack });
    }
  });
  post({ type: 'ready' });
}

/**
 * PGlite booted from the build's prebuilt data directory (initdb, the clock and the schema done
 * already: ~0.5 s instead of ~3 s), or null when there is none or it was built for another
 * schema; the caller then runs initdb, as the one-thread explorer always does. Either way the
 * database holds the same catalog (tests/prebuilt-datadir.test.ts) and runs give the same traces.
 */
async function fromPrebuilt(): Promise<PGlite | null> {
  return data.dataDir ? (await bootPrebuilt(data.dataDir, { startParams: [...PGLITE_START_PARAMS] })).pg : null;
}

main().catch((err: unknown) => post({ type: 'error', message: (err as Error)?.message ?? String(err), stack: (err as Error)?.stack }));
