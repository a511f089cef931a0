/**
 * What the lab reports to the page around it: a run whose verdict was shown, an exploration that
 * finished; and the small judgements those reports need (which tab a run's code came from, how
 * many faults injected by hand took effect).
 */
import type { RunResult } from '@/simulations/run/run';
import type { Fault } from '@/simulations/engine/types';

/** A run whose verdict the learner has just been shown (playback reached the end). */
export interface RunFinished {
  scenario: string;
  mode: 'starter' | 'solution' | 'yours';
  /** The code that ran. */
  code: string;
  seed: number;
  faults: Fault[];
  verdict: 'held' | 'violated';
  invariants: { id: string; held: boolean; detail: string }[];
  ledger: unknown;
  /** Errors the code threw (or answers its caller could not act on) during the run. */
  codeErrors: number;
  /** The lesson's prediction as this run answers it. */
  prediction?: { outcome: string; described: string };
}

/** An exploration that has finished (run to the end, cancelled, or stopped by code that failed to load). */
export interface ExploreFinished {
  scenario: string;
  mode: 'starter' | 'solution' | 'yours';
  /** The code explored. */
  code: string;
  /** Schedules run, and asked for: fewer ran when it was cancelled or the code failed to load. */
  runs: number;
  requested: number;
  /** Schedules that broke an invariant. */
  violations: number;
  /** Schedules whose code failed to load (an exploration stops at the first). */
  errors: number;
  /** Schedules in which the code failed (a TypeError, a rejected statement): never clean. */
  failures: number;
}

/**
 * How many of a run's faults injected by hand took effect (the run comes back from the worker as a
 * copy: compared by value). One that never happened (a crash of a worker already gone, the "next"
 * response of a call never made) changed nothing, and is not counted.
 */
export function injectedCount(result: Pick<RunResult, 'faults' | 'faultEvents'> | null | undefined, injected: readonly Fault[]): number {
  if (!result || injected.length === 0) return 0;
  const byHand = new Set(injected.map((f) => JSON.stringify(f)));
  return result.faults.filter((f, i) => byHand.has(JSON.stringify(f)) && result.faultEvents[i] !== null).length;
}

/** The tab a result's variant label came from: "starter", "solution", or anything else for "Your code". */
export function modeOf(variant: string): RunFinished['mode'] {
  return variant === 'starter' || variant === 'solution' ? variant : 'yours';
}
