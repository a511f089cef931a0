/** The learner's progress bar: throttled on the worker's clock, the first and the last report always sent. */
import { describe, expect, it } from 'vitest';
import { throttledProgress, type ExploreProgress } from '../components/db/explore-progress';

function reporter(total: number) {
  let t = 1_000;
  const reports: (ExploreProgress & { at: number })[] = [];
  const progress = throttledProgress(() => t, total, (p) => reports.push({ ...p, at: t - 1_000 }));
  return { reports, tick: (ms: number, done: number) => ((t += ms), progress(done)) };
}

describe('throttledProgress', () => {
  it('reports the first schedule at once, then at most every 250 ms, and always the last', () => {
    const r = reporter(200);
    for (let done = 1; done <= 200; done++) r.tick(5, done); // 200 schedules over a second
    expect(r.reports[0]).toMatchObject({ done: 1, at: 5, schedulesPerSecond: null });
    const gaps = r.reports.slice(1).map((p, i) => p.at - r.reports[i].at);
    expect(gaps.slice(0, -1).every((g) => g >= 250)).toBe(true);
    expect(r.reports.length).toBe(5); // 5, 255, 505, 755 ms and the last at 1,000 ms
    expect(r.reports.at(-1)).toMatchObject({ done: 200, total: 200, schedulesPerSecond: 200 });
  });

  it('gives no rate over the first quarter second, and a rate once the exploration is done however short', () => {
    const r = reporter(3);
    r.tick(10, 1);
    r.tick(10, 2);
    r.tick(10, 3);
    expect(r.reports.map((p) => [p.done, p.schedulesPerSecond])).toEqual([
      [1, null],
      [3, 100],
    ]);
  });
});
