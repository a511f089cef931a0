/**
 * What a course platform records for one unit — a lesson (its lab and its questions) or the
 * general questions at /check/ — computed from the learner's progress alone, so SCORM 1.2, SCORM
 * 2004, cmi5 and Open edX all report the same thing:
 *
 * - **passed** (lessons only): the lesson is done — "Your code" held on the demonstration and the
 *   same code came through a clean exploration (`lessonDone`). There is no "failed": a learner can
 *   always try again.
 * - **completed**: a lesson when it is passed and every one of its questions is answered right (the
 *   chips' "Questions n/n"); the general questions when both are answered right.
 * - **score**: the share of the unit's questions answered right on the learner's own — not after a
 *   wrong answer had shown the right one (`answeredOnOwn`) — from 0 to 1.
 */
import { answeredOnOwn, lessonDone, questionsProgress, type Progress } from '@/components/course/progress';

/** The id of the unit for the general questions (the /check/ page). */
export const CHECK_UNIT = 'check';

export interface UnitResult {
  /** Null for a unit with no pass mark (the general questions). */
  passed: boolean | null;
  completed: boolean;
  /** Questions answered right on the learner's own, and how many there are. */
  right: number;
  total: number;
  /** right / total, 0 when the unit has no questions. */
  scaled: number;
}

/** The result of unit `unitId` (a lesson id or `CHECK_UNIT`), whose questions are `questionIds`. */
export function unitResult(progress: Progress, unitId: string, questionIds: readonly string[]): UnitResult {
  const total = questionIds.length;
  const right = questionIds.filter((id) => answeredOnOwn(progress.quizzes[id])).length;
  const questionsDone = total === 0 || questionsProgress(progress, questionIds).allRight;
  const passed = unitId === CHECK_UNIT ? null : lessonDone(progress.scenarios[unitId]);
  return { passed, completed: (passed ?? true) && questionsDone, right, total, scaled: total === 0 ? 0 : right / total };
}

/** The score as the platforms' 0–100 raw score, rounded to a whole number. */
export function rawScore(result: UnitResult): number {
  return Math.round(result.scaled * 100);
}

/** SCORM 1.2 has one status: passed for a passed lesson, completed for finished general questions, else incomplete. */
export function scorm12Status(result: UnitResult): 'passed' | 'completed' | 'incomplete' {
  if (result.passed) return 'passed';
  if (result.passed === null && result.completed) return 'completed';
  return 'incomplete';
}

/** The SCORM 2004 elements: completion and success apart, the score scaled to 0–1. */
export function scorm2004Values(result: UnitResult): { completion: 'completed' | 'incomplete'; success: 'passed' | 'unknown'; scaled: string } {
  return {
    completion: result.completed ? 'completed' : 'incomplete',
    success: result.passed ? 'passed' : 'unknown',
    // At most 7 significant digits: SCORM 2004's real(10,7).
    scaled: String(Math.round(result.scaled * 10_000) / 10_000),
  };
}
