/** The explorer's state as the controller keeps it: idle, running (with progress), done or failed. */
import type { ExploreResult } from '@/simulations/run/run';

/** What the explorer shows. */
export type ExplorerState =
  | { status: 'idle' }
  | { status: 'running'; done: number; total: number; schedulesPerSecond: number | null }
  /** `requested`: how many schedules were asked for; fewer ran when the exploration was cancelled. */
  | { status: 'done'; result: ExploreResult; requested?: number }
  | { status: 'error'; message: string };
