/**
 * What a lesson is, declared in one place (`simulations/lessons/<id>/lesson.ts`): its catalog entry,
 * brief, world, demonstration, fault menu, invariants, which processes a learner may crash by hand
 * and which provider call may lose its response, its prediction and its questions. Its code lives
 * beside it as real files (starter.ts, solution.ts) that lint and typecheck against the learner API;
 * the ordered list in ../index.ts attaches their text.
 */
import type { CallKind } from '../../engine/types';
import type { LessonHints, Question } from '../catalog-types';
import type { Scenario } from './scenario';

/** A lesson as its folder declares it: everything but its code's text. */
export interface LessonDefinition extends Omit<Scenario, 'variants'> {
  /** One sentence for the course map: what goes wrong, and what fixes it. */
  summary: string;
  /** The idea of the lesson this scenario makes visible. */
  concept: string;
  /** What the starter and the solution do, and why each breaks or holds. */
  explanations: { starter: string; solution: string };
  /** Processes a learner may crash by hand in the lab (declared, never guessed from names). */
  crashable: string[];
  /** The provider call whose response "Lose the next response" loses; null: the lesson has no provider to lose one. */
  lossy: CallKind | null;
  /** "Check yourself" questions of this lesson (their `scenario` is the lesson's id). */
  questions: Omit<Question, 'scenario'>[];
  /** The hint ladder: a first nudge, then a hint for each way the lesson can tell the code broke. */
  hints: LessonHints;
}

/** A lesson with its code: what the engine, the lab, the CLI and the tests run. */
export interface Lesson extends LessonDefinition, Scenario {}

/** Declare a lesson (the default export of its lesson.ts). */
export function defineLesson(definition: LessonDefinition): LessonDefinition {
  return definition;
}

/** A lesson with its starter and solution source attached. */
export function withCode(definition: LessonDefinition, code: { starter: string; solution: string }): Lesson {
  return {
    ...definition,
    variants: {
      starter: { label: 'Starter', code: code.starter, explanation: definition.explanations.starter },
      solution: { label: 'Solution', code: code.solution, explanation: definition.explanations.solution },
    },
  };
}
