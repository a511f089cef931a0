/**
 * What a learner's progress may hold, as types and as valibot schemas, and the one parser every
 * reader of stored progress goes through (localStorage, a progress file, any other caller): stored
 * data is validated, never trusted.
 *
 * `parseProgress` never throws. It keeps every part that fits its schema and drops, naming each in
 * `dropped`, every part that does not. A part is the smallest unit that still means something:
 * one field of one lesson (`heldCode`, `predicted`, …), one lesson entry that is not an object, a
 * lesson this course does not have, one quiz answer, the sorting exercise. Unknown fields inside a
 * known part are left out silently (a later version may add some; nothing reads them).
 */
import * as v from 'valibot';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { QUIZ_SEED_PATTERN } from '@/simulations/course/quiz-order';

export interface ScenarioProgress {
  visited?: boolean;
  /**
   * The learner's prediction (an option id), and once a demonstration run revealed it, the outcome.
   * `afterSeeing`: made after the learner had already watched the starter's demonstration end.
   */
  predicted?: { choice: string; actual?: string; actualText?: string; afterSeeing?: boolean };
  /** A run of the starter on the demonstration plan has finished in front of the learner. */
  sawOutcome?: boolean;
  /** "Your code" held on the demonstration plan. */
  passed?: boolean;
  /**
   * A version of "Your code" that held on the demonstration also came through a whole exploration
   * with no violation. The demonstration is one schedule: a fix can hold there and still break on
   * others (a key drawn once per checkout survives the demonstration's retry, not a restart).
   */
  explored?: boolean;
  /** Digests (`codeDigest`) of the latest versions of "Your code" that held on the demonstration. */
  heldCode?: string[];
  /** Digests of the latest versions of "Your code" whose exploration found no violation. */
  cleanCode?: string[];
  /** The latest exploration of "Your code" that found violations: which version, and how many. */
  broke?: { digest: string; violations: number; runs: number };
  /**
   * The rungs of the lesson's hint ladder the learner opened, in the order first opened: `nudge`,
   * a targeted hint's id, `solution` (the ladder's ids, simulations/lessons/catalog-types.ts).
   */
  hints?: string[];
}

/** A question's last checked answer. */
export interface QuizRecord {
  choice: string;
  correct: boolean;
  /** A wrong answer was checked at some point, which showed the right one. */
  revealed?: boolean;
}

export interface Progress {
  version: 1;
  scenarios: Record<string, ScenarioProgress>;
  /** The last answer checked, per question id; `revealed` once a wrong answer showed the right one. */
  quizzes: Record<string, QuizRecord>;
  /** The replay-safety sorting exercise: the bins chosen, and how many were right at the last check. */
  sorting?: { choices: Record<string, string>; correct: number; total: number };
  /**
   * The seed the order of every question's choices is drawn from (simulations/course/quiz-order.ts):
   * made once per learner, or set by a `?quizSeed=` link so a class sees the same order.
   */
  quizSeed?: string;
}

/** How many hint ids a lesson keeps (a ladder has a handful of rungs; this only bounds stored data). */
export const HINTS_KEPT = 32;

/** How many digests of each kind a lesson keeps: enough for a learner going back and forth. */
export const DIGESTS_KEPT = 8;

/** One part left out of stored progress: where it was, and what a learner reads about it. */
export interface DroppedPart {
  /** Dotted path in the stored record, e.g. `scenarios.receipt-redelivery.heldCode`. */
  path: string;
  /** The part in the learner's words, e.g. `“The redelivered receipt”: which versions of your code held`. */
  text: string;
}

export interface ParsedProgress {
  progress: Progress;
  dropped: DroppedPart[];
}

const TITLES = new Map(SCENARIO_CATALOG.map((s) => [s.id as string, s.title]));

/** Whether `id` is a lesson of this course. */
export function isLessonId(id: string): boolean {
  return TITLES.has(id);
}

// Ids are short printable words; the names that reach an object's prototype are refused, so a
// record built from stored keys can never be anything but a plain record.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const id = v.pipe(
  v.string(),
  v.regex(/^\S{1,120}$/),
  v.check((s) => !FORBIDDEN_KEYS.has(s)),
);
const text = v.pipe(v.string(), v.maxLength(2_000));
const digest = v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/));
const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000_000));
const digests = v.pipe(
  v.array(digest),
  v.transform((list) => list.slice(-DIGESTS_KEPT)),
);

type FieldSchemas<T> = { [K in keyof Required<T>]-?: v.GenericSchema<unknown, NonNullable<T[K]>> };

/** One schema per field of a lesson's progress: a field that fails is dropped alone. */
export const scenarioFieldSchemas = {
  visited: v.boolean(),
  predicted: v.object({ choice: id, actual: v.optional(id), actualText: v.optional(text), afterSeeing: v.optional(v.boolean()) }),
  sawOutcome: v.boolean(),
  passed: v.boolean(),
  explored: v.boolean(),
  heldCode: digests,
  cleanCode: digests,
  broke: v.object({ digest, violations: count, runs: count }),
  hints: v.pipe(
    v.array(id),
    v.transform((list) => [...new Set(list)].slice(0, HINTS_KEPT)),
  ),
} satisfies FieldSchemas<ScenarioProgress>;

export const quizRecordSchema = v.object({ choice: id, correct: v.boolean(), revealed: v.optional(v.boolean()) }) satisfies v.GenericSchema<unknown, QuizRecord>;

export const quizSeedSchema = v.pipe(v.string(), v.regex(QUIZ_SEED_PATTERN));

export const sortingSchema = v.pipe(
  v.object({ choices: v.record(id, id), correct: count, total: count }),
  v.check((s) => s.correct <= s.total),
) satisfies v.GenericSchema<unknown, NonNullable<Progress['sorting']>>;

/** What each field is, in the notice that names a dropped one. */
const FIELD_TEXT: Record<keyof ScenarioProgress, string> = {
  visited: 'visited',
  predicted: 'your prediction',
  sawOutcome: 'that you saw the demonstration',
  passed: 'that your code held',
  explored: 'that your code came through exploration',
  heldCode: 'which versions of your code held',
  cleanCode: 'which versions of your code came through exploration',
  broke: 'the last exploration that broke your code',
  hints: 'which hints you opened',
};

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const quote = (s: string) => `“${s.length > 60 ? `${s.slice(0, 57)}…` : s}”`;

/** The lesson's title for a notice (or its id, quoted, for a lesson this course does not have). */
export function lessonName(lessonId: string): string {
  return quote(TITLES.get(lessonId) ?? lessonId);
}

function parseScenario(lessonId: string, entry: unknown, dropped: DroppedPart[]): ScenarioProgress | null {
  const path = `scenarios.${lessonId}`;
  if (!isLessonId(lessonId)) {
    dropped.push({ path, text: `A lesson this course does not have (${quote(lessonId)})` });
    return null;
  }
  if (!isRecord(entry)) {
    dropped.push({ path, text: `Everything about the lesson ${lessonName(lessonId)}` });
    return null;
  }
  const out: Record<string, unknown> = {};
  for (const [field, schema] of Object.entries(scenarioFieldSchemas) as [keyof ScenarioProgress, v.GenericSchema][]) {
    if (!Object.hasOwn(entry, field)) continue;
    const r = v.safeParse(schema, entry[field]);
    if (r.success) out[field] = r.output;
    else dropped.push({ path: `${path}.${field}`, text: `${lessonName(lessonId)}: ${FIELD_TEXT[field]}` });
  }
  return Object.keys(out).length > 0 ? (out as ScenarioProgress) : null;
}

/**
 * The progress in `value` (already JSON-parsed; `undefined` or `null` for nothing stored), keeping
 * every part that fits its schema and naming each part left out. Never throws.
 */
export function parseProgress(value: unknown): ParsedProgress {
  const dropped: DroppedPart[] = [];
  const progress: Progress = { version: 1, scenarios: {}, quizzes: {} };
  if (value === undefined || value === null) return { progress, dropped };
  if (!isRecord(value)) {
    dropped.push({ path: '', text: 'All of it: it is not a progress record' });
    return { progress, dropped };
  }
  if (value.version !== 1) {
    dropped.push({ path: 'version', text: 'All of it: it was saved in a format this version does not know' });
    return { progress, dropped };
  }

  if (value.scenarios !== undefined && !isRecord(value.scenarios)) {
    dropped.push({ path: 'scenarios', text: 'Every lesson’s progress: it is not a list of lessons' });
  } else if (value.scenarios) {
    const entries: [string, ScenarioProgress][] = [];
    for (const [lessonId, entry] of Object.entries(value.scenarios)) {
      const parsed = parseScenario(lessonId, entry, dropped);
      if (parsed) entries.push([lessonId, parsed]);
    }
    progress.scenarios = Object.fromEntries(entries);
  }

  if (value.quizzes !== undefined && !isRecord(value.quizzes)) {
    dropped.push({ path: 'quizzes', text: 'Every answer to the questions: they are not a list of answers' });
  } else if (value.quizzes) {
    const entries: [string, QuizRecord][] = [];
    for (const [questionId, record] of Object.entries(value.quizzes)) {
      const r = v.safeParse(quizRecordSchema, record);
      if (r.success && v.is(id, questionId)) entries.push([questionId, r.output]);
      else dropped.push({ path: `quizzes.${questionId}`, text: `Your answer to the question ${quote(questionId)}` });
    }
    progress.quizzes = Object.fromEntries(entries);
  }

  if (value.sorting !== undefined) {
    const r = v.safeParse(sortingSchema, value.sorting);
    if (r.success) progress.sorting = r.output;
    else dropped.push({ path: 'sorting', text: 'The sorting exercise (“What does a replay cost?”)' });
  }

  if (value.quizSeed !== undefined) {
    const r = v.safeParse(quizSeedSchema, value.quizSeed);
    if (r.success) progress.quizSeed = r.output;
    else dropped.push({ path: 'quizSeed', text: 'The order your questions’ choices are shown in (a new one is drawn)' });
  }
  return { progress, dropped };
}

/** `parseProgress` of a stored JSON string; text that is not JSON is dropped whole, with a note. */
export function parseProgressText(raw: string | null): ParsedProgress {
  if (raw === null || raw === '') return parseProgress(undefined);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { progress: { version: 1, scenarios: {}, quizzes: {} }, dropped: [{ path: '', text: 'All of it: it is not readable JSON' }] };
  }
  return parseProgress(value);
}
