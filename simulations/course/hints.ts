/**
 * Which rung of a lesson's hint ladder speaks to a broken schedule. A schedule is what a run or an
 * exploration's counterexample found: the invariant that broke and the fault plan it ran under.
 * The most specific hint wins: one whose fault shape matches a fault of the plan, else the
 * invariant's general one. Pure: the ladder's data is the lesson's (`hints` in its lesson.ts).
 */
import type { Fault } from '../engine/types';
import type { FaultShape, LessonHints, TargetedHint } from '../lessons/catalog-types';

/** The ids of the ladder's fixed rungs (a targeted hint's id is its own). */
export const NUDGE_ID = 'nudge';
export const SOLUTION_ID = 'solution';

/** What broke: an invariant's id, and the plan of the schedule that broke it. */
export interface BrokenSchedule {
  invariant: string;
  faults: readonly Fault[];
}

/** Whether `fault` has every field `shape` names, with the same value. */
export function faultMatches(shape: FaultShape, fault: Fault): boolean {
  const record = fault as unknown as Record<string, unknown>;
  return Object.entries(shape).every(([field, value]) => record[field] === value);
}

/** The hint for `broken`: the first matching one with a fault shape, else the invariant's general one; null when the ladder has none. */
export function targetedHint(hints: LessonHints, broken: BrokenSchedule): TargetedHint | null {
  const forInvariant = hints.targeted.filter((h) => h.invariant === broken.invariant);
  const specific = forInvariant.find((h) => h.fault && broken.faults.some((f) => faultMatches(h.fault!, f)));
  return specific ?? forInvariant.find((h) => !h.fault) ?? null;
}
