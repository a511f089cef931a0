/**
 * The lessons' hint ladders as the lab reads them, without loading the engine: derived from each
 * lesson's `hints` (its lesson.ts) by `npm run gen` into ./hints.generated.ts.
 */
import type { LessonHints } from './catalog-types';
import { LESSON_HINTS } from './hints.generated';

/** The hint ladder of lesson `id`, or undefined for an id the course does not have. */
export function hintsFor(id: string): LessonHints | undefined {
  return Object.hasOwn(LESSON_HINTS, id) ? LESSON_HINTS[id] : undefined;
}
