/**
 * One thread of a parallel exploration (./explore-parallel.ts): its own PGlite, the scenario's
 * schedules for the seeds it is asked for, and the shrinking of a counterexample when asked.
 * A thread is a realm of its own: it locks itself down before any learner code runs, and watches
 * itself for learner code that never gives the thread back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { drawFaults, exploreSeed, runScenario, shrinkSeed, summarize } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { openSimPglite } from './node-pglite';
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
  // The parent read the prebuilt data directory once for all its threads.
  const db = await openSimPglite(data.dataDir);
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

main().catch((err: unknown) => post({ type: 'error', message: (err as Error)?.message ?? String(err), stack: (err as Error)?.stack }));
