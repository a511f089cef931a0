'use client';
/**
 * Talk to the tab's database worker (`tabWorkerClient()`: one per tab, however often this hook
 * mounts). PgliteProvider calls it in the root layout; components read it with `useDatabase()`.
 * The worker outlives every component (React StrictMode's mount, unmount, mount in development
 * included): the page keeps one database for as long as it is open.
 */
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { ExploreRequest, QueryResult, RunRequest } from './protocol';
import { SqlError } from './protocol';
import { tabExplorePool, type ExplorePool } from './explore-pool';
import { tabWorkerClient, type BootState, type ExploreProgress, type RunAnswer, type WorkerClient } from './worker-client';

export type { DbStatus } from './worker-client';

export interface PgliteHandle extends BootState {
  /** Run a SQL script in the worker's database; rejects with an `SqlError`. */
  query(sql: string): Promise<QueryResult>;
  /** Run the learner's code once; rejects with a `StuckError` when its loop guard or the watchdog had to stop it. */
  run(request: Omit<RunRequest, 'type' | 'id'>): Promise<RunAnswer>;
  /** Explore many schedules, with progress; rejects with a `StuckError` like `run`. */
  explore(
    request: Omit<ExploreRequest, 'type' | 'id'>,
    onProgress?: (p: ExploreProgress) => void,
  ): { result: Promise<import('@/simulations/run/run').ExploreResult>; cancel(): void };
  /** Stop the query the worker is running by restarting the database (false: none was running). */
  stopQuery(): boolean;
  /**
   * Get ready to explore `scenario`: start the helper workers the hardware affords and warm every
   * worker up with `codes` (./explore-pool.ts). Call it once the page is idle.
   */
  prepareExplore(scenario: string, codes: string[]): void;
  /** How many database workers an exploration spreads over once all are up (1: the tab's own alone). */
  exploreWorkers: number;
}

const BOOTING: BootState = { status: 'booting', restarts: 0 };
const noClient = () => () => {};

/** The tab's database once `enabled` (until then it reads as booting, and no worker is started). */
export function usePglite(enabled = true): PgliteHandle {
  const [client, setClient] = useState<WorkerClient | null>(null);
  const [pool, setPool] = useState<ExplorePool | null>(null);

  useEffect(() => {
    if (!enabled) return;
    setClient(tabWorkerClient());
    setPool(tabExplorePool());
  }, [enabled]);

  const state = useSyncExternalStore(
    client?.subscribe ?? noClient,
    () => client?.getState() ?? BOOTING,
    () => BOOTING,
  );

  const notRunning = useCallback(() => Promise.reject(new SqlError({ message: 'The database worker is not running.' })), []);
  // The learner's own requests take the cores from the helpers' warm-ups.
  const query = useCallback((sql: string) => (pool?.quiet(), client ? client.query(sql) : notRunning()), [client, pool, notRunning]);
  const run = useCallback((request: Omit<RunRequest, 'type' | 'id'>) => (pool?.quiet(), client ? client.run(request) : notRunning()), [client, pool, notRunning]);
  const explore = useCallback(
    (request: Omit<ExploreRequest, 'type' | 'id'>, onProgress?: (p: ExploreProgress) => void) =>
      pool ? pool.explore(request, onProgress) : { result: notRunning(), cancel() {} },
    [pool, notRunning],
  );
  const prepareExplore = useCallback((scenario: string, codes: string[]) => void pool?.prepare(scenario, codes), [pool]);

  const stopQuery = useCallback(() => client?.stopQuery() ?? false, [client]);

  const exploreWorkers = pool?.workers ?? 1;
  return useMemo(
    () => ({ ...state, query, run, explore, stopQuery, prepareExplore, exploreWorkers }),
    [state, query, run, explore, stopQuery, prepareExplore, exploreWorkers],
  );
}
