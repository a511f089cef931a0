/**
 * The shapes of the light course data: what the course map, the quizzes and the lab's client
 * components read about lessons without loading the engine. Types only.
 */
import type { Fault } from '../engine/types';

/** A lab state that shows a question's answer happening. */
export interface SeeIt {
  scenario: string;
  variant: 'starter' | 'solution';
  seed: number;
  faults: Fault[];
  /** Trace index to select when the run is loaded (where the invariant broke, for a violation). */
  step?: number;
  /** What the run's verdict is. */
  expect: 'violated' | 'held';
  /** The invariant that breaks (for 'violated') or the one worth looking at (for 'held'). */
  invariant?: string;
}

/** One multiple-choice question. */
export interface Question {
  id: string;
  /** The scenario it belongs to; absent for the lesson's general questions. */
  scenario?: string;
  prompt: string;
  choices: { id: string; text: string }[];
  /** The id of the one correct choice. */
  correct: string;
  /** Why the correct choice is right and the others are not. */
  explanation: string;
  see?: SeeIt;
}

/**
 * How a schedule broke an invariant, as far as a hint cares: a fault of its plan has every field
 * given here (e.g. `{ kind: 'crash', after: 'db' }`: a process crashed right after a database step).
 */
export type FaultShape = Partial<Record<'kind' | 'process' | 'after' | 'before' | 'call' | 'message', string>>;

/** A hint for one way a learner's code breaks: which invariant, and (where the lesson can tell) how. */
export interface TargetedHint {
  /** Stable within the lesson: recorded in progress when the learner opens it. */
  id: string;
  /** The invariant (its id in the lesson) whose break this hint is about. */
  invariant: string;
  /** Only when the schedule's fault plan holds a fault of this shape; absent: any schedule. */
  fault?: FaultShape;
  /** What is probably wrong and what to watch in the replay, in the learner's terms. */
  text: string;
}

/** A lesson's hint ladder: a nudge, hints for the breaks it recognises, then (on request) the solution. */
export interface LessonHints {
  /** The first rung: where to look in the run, not what to write. */
  nudge: string;
  /** Hints for broken invariants; every invariant of the lesson has one without `fault`. */
  targeted: TargetedHint[];
}

/** A prediction as the page shows it: the prompt and the outcomes to pick from. The run answers it. */
export interface PredictionPrompt {
  /** Asked before the run. */
  prompt: string;
  /** The outcomes a learner can pick from; the run's measure is one of their ids. */
  options: { id: string; label: string }[];
}

/** One lesson as the course map shows it. */
export interface ScenarioEntry {
  /** URL segment and CLI name: the lesson's folder. */
  id: string;
  title: string;
  /** One sentence: what goes wrong, and what fixes it. */
  summary: string;
  /** The idea of the lesson this scenario makes visible. */
  concept: string;
}

/** A lesson's light data, as scripts/gen.ts writes it. */
export interface CatalogEntry extends ScenarioEntry {
  prediction: PredictionPrompt | null;
  questions: Question[];
}
