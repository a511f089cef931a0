'use client';
/**
 * Once the tab's database is ready and the page has gone idle, get ready to explore this lesson:
 * helper workers start where the hardware affords them, and every worker warms up on the lesson's
 * starter and solution while the learner reads the brief (./explore-pool.ts). Nothing is shown:
 * a learner who asks for a run or an exploration first is served at once, the warm-up stopping at
 * its next schedule.
 */
import { useEffect } from 'react';
import type { PgliteHandle } from './usePglite';

/** Longest wait for an idle moment before preparing anyway. */
const IDLE_TIMEOUT_MS = 3_000;

export function useExplorePreparation(db: Pick<PgliteHandle, 'status' | 'prepareExplore'>, scenario: string, codes: readonly string[]): void {
  const ready = db.status === 'ready';
  const { prepareExplore } = db;
  const key = codes.join('\u0000');
  useEffect(() => {
    if (!ready) return;
    const go = () => prepareExplore(scenario, key.split('\u0000'));
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(go, { timeout: IDLE_TIMEOUT_MS });
      return () => window.cancelIdleCallback(handle);
    }
    const timer = window.setTimeout(go, 500);
    return () => window.clearTimeout(timer);
  }, [ready, prepareExplore, scenario, key]);
}
