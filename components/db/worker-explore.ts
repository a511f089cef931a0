/**
 * The database worker's explorations (./worker-main.ts serves them, one request at a time): a whole
 * exploration with progress, one share of an exploration spread over several workers
 * (./explore-pool.ts), the finish of such an exploration, and the warm-up before the first.
 */
import { hostTick } from '@/simulations/engine/host-tick';
import { explore, exploreSeed, finishExploration, HOST_TURN_EVERY_RUNS, summarize, type ScheduleSummary } from '@/simulations/run/run';
import { lessonById } from '@/simulations/lessons';
import type { PgliteSimDatabase } from '@/simulations/db/pglite';
import type { ExploreFinishRequest, ExploreRequest, ExploreSeedsRequest, WarmRequest, WorkerResponse } from './protocol';
import { throttledProgress } from './explore-progress';
import { hostClock } from './sandbox';

/** What an exploration needs from the worker that serves it. */
export interface ExploreHost {
  /** The booted database, or null once the request was answered with why there is none. */
  database(id: number): Promise<{ sim: PgliteSimDatabase } | null>;
  post(message: WorkerResponse): void;
  /** Runs `job` as a busy spell: the heartbeat on, the learner's unhandled rejections collected. */
  busy(job: () => Promise<void>): Promise<void>;
  /** Ids of explorations the page cancelled. */
  cancelled: Set<number>;
  /** Whether the loop guard stopped the learner's code: the exploration ends there, answered 'stuck'. */
  stuck(): boolean;
}

const failed = (error: unknown) => `The exploration could not finish: ${error instanceof Error ? error.message || error.name : String(error)}`;

/** Explore `request.runs` schedules here, with progress, and answer with the result. */
export async function exploreAll(host: ExploreHost, request: ExploreRequest): Promise<void> {
  const db = await host.database(request.id);
  if (!db) return;
  await host.busy(async () => {
    const progress = throttledProgress(hostClock.now, request.runs, (p) => host.post({ type: 'explore-progress', id: request.id, ...p }));
    try {
      const result = await explore(db.sim, {
        scenario: lessonById(request.scenario),
        code: request.code,
        variant: request.variant ?? 'your code',
        runs: request.runs,
        ...(request.shrinkBudget === undefined ? {} : { shrinkBudget: request.shrinkBudget }),
        hostNow: hostClock.now,
        shouldStop: () => host.cancelled.has(request.id) || host.stuck(),
        onProgress: (done) => progress(done),
      });
      host.post({ type: 'explore-result', id: request.id, result });
    } catch (error) {
      host.post({ type: 'error', id: request.id, message: failed(error) });
    } finally {
      host.cancelled.delete(request.id);
    }
  });
}

/** One share of an exploration spread over several workers: the summaries of its seeds. */
export async function exploreShare(host: ExploreHost, request: ExploreSeedsRequest): Promise<void> {
  const db = await host.database(request.id);
  if (!db) return;
  await host.busy(async () => {
    try {
      const opts = { scenario: lessonById(request.scenario), code: request.code, variant: request.variant ?? 'your code' };
      const summaries: ScheduleSummary[] = [];
      for (let k = 0; k < request.count; k++) {
        if (k % HOST_TURN_EVERY_RUNS === 0) await hostTick();
        if (host.cancelled.has(request.id) || host.stuck()) break;
        const summary = summarize(await exploreSeed(db.sim, opts, request.firstSeed + k));
        summaries.push(summary);
        // Code that cannot load fails every schedule alike: the exploration stops there.
        if (summary.verdict === 'error') break;
      }
      host.post({ type: 'explore-seeds-result', id: request.id, summaries });
    } catch (error) {
      host.post({ type: 'error', id: request.id, message: failed(error) });
    } finally {
      host.cancelled.delete(request.id);
    }
  });
}

/** Count a spread exploration's summaries and shrink its first violation here. */
export async function finishSpread(host: ExploreHost, request: ExploreFinishRequest): Promise<void> {
  const db = await host.database(request.id);
  if (!db) return;
  await host.busy(async () => {
    try {
      const opts = {
        scenario: lessonById(request.scenario),
        code: request.code,
        variant: request.variant ?? 'your code',
        runs: request.summaries.length,
        ...(request.shrinkBudget === undefined ? {} : { shrinkBudget: request.shrinkBudget }),
      };
      const result = await finishExploration(db.sim, opts, request.summaries, request.elapsedMs);
      host.post({ type: 'explore-result', id: request.id, result });
    } catch (error) {
      host.post({ type: 'error', id: request.id, message: failed(error) });
    }
  });
}

/**
 * Warm up for a lesson (see WarmRequest): its codes, seed by seed, results discarded, until
 * `request.runs` seeds are done or `stop()` says another request arrived; then the tables are
 * emptied again, as the page left them. Always answered.
 */
export async function warmUp(host: ExploreHost, request: WarmRequest, stop: () => boolean): Promise<void> {
  const started = hostClock.now();
  let runs = 0;
  const db = stop() ? null : await host.database(request.id);
  if (db) {
    await host.busy(async () => {
      try {
        const scenario = lessonById(request.scenario);
        for (let seed = 1; seed <= request.runs && !stop(); seed++) {
          for (const code of request.codes) {
            // A turn before every schedule: a request that arrives is seen at once.
            await hostTick();
            if (stop()) break;
            await exploreSeed(db.sim, { scenario, code, variant: 'warm-up' }, seed);
            runs++;
          }
        }
        // The last warm-up run's rows stay in the tables until something resets them: the query
        // panel would show them as if the learner's code had made them.
        if (runs > 0) await db.sim.reset();
      } catch {
        // A warm-up only saves time later: whatever stopped it, requests are served as usual.
      }
    });
  }
  host.post({ type: 'warm-result', id: request.id, runs, ms: Math.round(hostClock.now() - started) });
}
