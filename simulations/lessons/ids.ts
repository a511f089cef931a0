/**
 * The lessons' ids in order, and nothing else: small enough for the root layout's first scripts
 * (the database provider asks whether an address is a real lab before it boots PGlite). Derived
 * from the ordered list (./index.ts) by `npm run gen` into ./ids.generated.ts.
 */
import { LESSON_IDS } from './ids.generated';

/** The id of a lesson in the course (its folder's name). */
export type ScenarioId = (typeof LESSON_IDS)[number];

/** The lessons' ids in order. */
export const SCENARIO_IDS: readonly ScenarioId[] = LESSON_IDS;

const KNOWN: ReadonlySet<string> = new Set(SCENARIO_IDS);

/** Whether `id` names a lesson. */
export function isScenarioId(id: string): id is ScenarioId {
  return KNOWN.has(id);
}
