/**
 * An exploration's progress as the learner sees it, throttled: the tab's worker reports it for an
 * exploration it runs whole (./worker-explore.ts), the page for one spread over several workers
 * (./explore-pool.ts). Imports nothing, so the page does not load the worker's code for it.
 */

/** How far an exploration has got. */
export interface ExploreProgress {
  done: number;
  total: number;
  /** Null over the first quarter second: a rate then is mostly noise ("1 of 200 · 7 schedules/s"). */
  schedulesPerSecond: number | null;
}

/** How long an exploration runs before its progress reports a rate. */
const RATE_AFTER_MS = 250;
/** Progress goes out at most this often (the first and the last report always do): each post wakes the page, which re-renders on the same cores. */
const PROGRESS_EVERY_MS = 250;

/**
 * A reporter for an exploration of `total` schedules starting now on clock `now`: call it with
 * how many are done; it calls `report` at most every PROGRESS_EVERY_MS, and always when all are.
 */
export function throttledProgress(now: () => number, total: number, report: (p: ExploreProgress) => void): (done: number) => void {
  const started = now();
  let last = -Infinity;
  return (done) => {
    const at = now();
    if (at - last < PROGRESS_EVERY_MS && done < total) return;
    last = at;
    const elapsed = at - started;
    const rate = elapsed >= RATE_AFTER_MS || (done === total && elapsed > 0) ? Math.round((done / elapsed) * 1000) : null;
    report({ done, total, schedulesPerSecond: rate });
  };
}
