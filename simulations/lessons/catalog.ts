/**
 * The light course data: lesson ids, titles, summaries, predictions' prompts and questions, in
 * lesson order, for pages and components that must not load the engine (the course map, the
 * quizzes, the share links). It is derived from the lessons themselves (./index.ts) by
 * `npm run gen` into ./catalog.generated.ts; a test fails when that file is stale.
 */
import { LESSON_ENTRIES } from './catalog.generated';
import type { CatalogEntry, Question } from './catalog-types';
import { GENERAL_QUESTIONS } from './general-questions';

export type { CatalogEntry, PredictionPrompt, Question, ScenarioEntry, SeeIt } from './catalog-types';
export { isScenarioId, SCENARIO_IDS, type ScenarioId } from './ids';

/** The lessons in order, as the course map shows them. */
export const SCENARIO_CATALOG: readonly CatalogEntry[] = LESSON_ENTRIES;

/** Every question: the general ones first, then each lesson's in lesson order. */
export const QUESTIONS: readonly Question[] = [...GENERAL_QUESTIONS, ...LESSON_ENTRIES.flatMap((l) => l.questions)];

/** The question `id`, or undefined. */
export function questionById(id: string): Question | undefined {
  return QUESTIONS.find((q) => q.id === id);
}

/** The questions of lesson `scenarioId`, in order. */
export function questionsFor(scenarioId: string): Question[] {
  return QUESTIONS.filter((q) => q.scenario === scenarioId);
}

/** The course's general questions (not tied to one lesson). */
export function generalQuestions(): Question[] {
  return QUESTIONS.filter((q) => q.scenario === undefined);
}

/** The prediction prompt of lesson `scenarioId`, if it has one. */
export function predictionPromptFor(scenarioId: string) {
  return LESSON_ENTRIES.find((l) => l.id === scenarioId)?.prediction ?? undefined;
}
