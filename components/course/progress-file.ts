/**
 * The progress file: everything this browser keeps about a learner (progress, predictions,
 * answers, the sorting, and the saved code of every lesson) as one JSON document a learner can
 * carry to another device, and the rules for taking one in.
 *
 * Reading a file never throws and never trusts it: the progress goes through the same schemas as
 * stored progress (`parseProgress`), each lesson's code must be text of at most `MAX_CODE_CHARS`
 * for a lesson this course has, and every part left out is named. A file that is not JSON, not a
 * progress file, from a newer format, or larger than `MAX_FILE_BYTES` is refused with a reason.
 *
 * Taking one in is pure (`mergeInto`, `replaceWith`): the caller stores the result and keeps what
 * was there for Undo. Merge never loses anything that is here (see `mergeProgress`).
 */
import * as v from 'valibot';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { formatBytes } from '@/components/lab/saved-code';
import { answeredOnOwn, lessonDone, type DroppedPart, type Progress, type QuizRecord, type ScenarioProgress } from './progress';
import { DIGESTS_KEPT, isLessonId, isRecord, lessonName, parseProgress } from './progress-schema';

/** The file's `format`: what says this JSON is ours. */
export const FILE_FORMAT = 'effectively-once-progress';
export const FILE_VERSION = 1;
/** A file larger than this is refused before it is read (every lesson's code at its largest fits). */
export const MAX_FILE_BYTES = 5_000_000;
/** One lesson's code in a file: longer text is left out. */
export const MAX_CODE_CHARS = 1_000_000;

export interface ProgressFile {
  format: typeof FILE_FORMAT;
  version: typeof FILE_VERSION;
  /** When it was exported (ISO 8601), for the learner's eyes only. */
  exportedAt: string;
  progress: Progress;
  /** Saved code per lesson id; lessons still on their starter are absent. */
  code: Record<string, string>;
}

/** What is kept in this browser: what a file holds, and what Undo puts back. */
export interface Saved {
  progress: Progress;
  code: Record<string, string>;
}

export function buildProgressFile(saved: Saved, exportedAt: Date): ProgressFile {
  return { format: FILE_FORMAT, version: FILE_VERSION, exportedAt: exportedAt.toISOString(), progress: saved.progress, code: saved.code };
}

export function progressFileName(exportedAt: Date): string {
  return `effectively-once-progress-${exportedAt.toISOString().slice(0, 10)}.json`;
}

export type ReadFile =
  | { ok: true; saved: Saved; exportedAt: string | null; dropped: DroppedPart[] }
  | { ok: false; error: string };

const codeText = v.pipe(v.string(), v.maxLength(MAX_CODE_CHARS));
const CHOOSE_OURS = 'Choose a file that “Export my progress” saved.';

/** Refuse a file by its size alone, before reading it. */
export function fileSizeError(bytes: number): string | null {
  if (bytes === 0) return `This file is empty. ${CHOOSE_OURS}`;
  if (bytes > MAX_FILE_BYTES) return `This file is ${formatBytes(bytes)}; a progress file is at most ${formatBytes(MAX_FILE_BYTES)}. ${CHOOSE_OURS}`;
  return null;
}

/** Read a progress file's text: what it holds, which parts were left out, or why it was refused. */
export function readProgressFile(text: string): ReadFile {
  const tooBig = fileSizeError(text.length);
  if (tooBig) return { ok: false, error: tooBig };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `This file could not be read: it is not JSON, or it was damaged or cut short. ${CHOOSE_OURS}` };
  }
  if (!isRecord(value) || value.format !== FILE_FORMAT) {
    return { ok: false, error: `This is not an Effectively Once progress file (it does not say "format": "${FILE_FORMAT}"). ${CHOOSE_OURS}` };
  }
  if (typeof value.version !== 'number' || !Number.isInteger(value.version) || value.version < 1) {
    return { ok: false, error: 'This progress file is damaged: its format version is missing or not a number.' };
  }
  if (value.version > FILE_VERSION) {
    return { ok: false, error: `This progress file was made by a newer version of the course (format version ${value.version}); this one reads version ${FILE_VERSION}.` };
  }
  if (!isRecord(value.progress)) {
    return { ok: false, error: 'This progress file is damaged: it holds no progress record.' };
  }
  const { progress, dropped } = parseProgress(value.progress);
  const code: [string, string][] = [];
  if (value.code !== undefined && !isRecord(value.code)) {
    dropped.push({ path: 'code', text: 'All the saved code: it is not a list of lessons' });
  } else if (value.code) {
    for (const [lessonId, entry] of Object.entries(value.code)) {
      if (!isLessonId(lessonId)) dropped.push({ path: `code.${lessonId}`, text: `Saved code for a lesson this course does not have (${lessonName(lessonId)})` });
      else if (!v.is(codeText, entry)) dropped.push({ path: `code.${lessonId}`, text: `Saved code for ${lessonName(lessonId)}: ${typeof entry === 'string' ? 'longer than a lesson’s code can be' : 'it is not text'}` });
      else code.push([lessonId, entry]);
    }
  }
  const exportedAt = typeof value.exportedAt === 'string' && !Number.isNaN(Date.parse(value.exportedAt)) ? value.exportedAt : null;
  return { ok: true, saved: { progress: prefix(progress), code: Object.fromEntries(code) }, exportedAt, dropped };
}

// Progress keeps lesson order in its keys: the catalog's order, whatever the file's.
function prefix(p: Progress): Progress {
  const scenarios = Object.fromEntries(SCENARIO_CATALOG.filter((s) => p.scenarios[s.id]).map((s) => [s.id, p.scenarios[s.id]!]));
  return { ...p, scenarios };
}

/** What a file (or this browser) holds, in counts a learner recognises. */
export interface Holdings {
  lessonsDone: number;
  lessonsStarted: number;
  predictions: number;
  answers: number;
  answersRight: number;
  sorting: boolean;
  code: number;
}

export function holdings(saved: Saved): Holdings {
  const lessons = Object.values(saved.progress.scenarios);
  const answers = Object.values(saved.progress.quizzes);
  return {
    lessonsDone: lessons.filter((s) => lessonDone(s)).length,
    lessonsStarted: lessons.filter((s) => !lessonDone(s)).length,
    predictions: lessons.filter((s) => s.predicted).length,
    answers: answers.length,
    answersRight: answers.filter((a) => a.correct).length,
    sorting: saved.progress.sorting !== undefined,
    code: Object.keys(saved.code).length,
  };
}

/** Lessons whose code differs between here and the file (merge keeps the code here). */
export function codeConflicts(here: Saved, file: Saved): string[] {
  return Object.keys(file.code).filter((id) => here.code[id] !== undefined && here.code[id] !== file.code[id]);
}

const or = (a: boolean | undefined, b: boolean | undefined) => (a || b ? true : undefined);

/** Digests from both, the ones here last (the latest), at most `DIGESTS_KEPT`. */
function unionDigests(here: string[] | undefined, file: string[] | undefined): string[] | undefined {
  if (!here && !file) return undefined;
  const mine = here ?? [];
  return [...(file ?? []).filter((d) => !mine.includes(d)), ...mine].slice(-DIGESTS_KEPT);
}

// A prediction that counts (revealed, made before seeing) beats one revealed after seeing, which
// beats one still waiting for its run.
function predictionRank(p: ScenarioProgress['predicted']): number {
  if (!p) return 0;
  if (p.actual === undefined) return 1;
  return p.afterSeeing ? 2 : 3;
}

// An answer right on the learner's own beats one right after a reveal, which beats a wrong one.
const answerRank = (r: QuizRecord | undefined) => (r === undefined ? -1 : answeredOnOwn(r) ? 2 : r.correct ? 1 : 0);

function mergeScenario(here: ScenarioProgress = {}, file: ScenarioProgress = {}): ScenarioProgress {
  const merged: ScenarioProgress = {
    visited: or(here.visited, file.visited),
    predicted: predictionRank(file.predicted) > predictionRank(here.predicted) ? file.predicted : here.predicted,
    sawOutcome: or(here.sawOutcome, file.sawOutcome),
    passed: or(here.passed, file.passed),
    explored: or(here.explored, file.explored),
    heldCode: unionDigests(here.heldCode, file.heldCode),
    cleanCode: unionDigests(here.cleanCode, file.cleanCode),
    broke: here.broke ?? file.broke,
    hints: here.hints || file.hints ? [...new Set([...(here.hints ?? []), ...(file.hints ?? [])])] : undefined,
  };
  // A flag that is false says nothing a missing one does not: both come out missing.
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)) as ScenarioProgress;
}

/**
 * The progress here and a file's, merged so that nothing here is lost and every step the learner
 * made on either device counts: a lesson is visited, held, explored or done when it is on either
 * side (once done, a lesson stays done); the digests of code that held or came through are the
 * union (the ones here latest); a prediction and an answer keep the one that counts most (here's on
 * a tie); the sorting keeps the better score (here's on a tie); the hints opened are the union
 * (here's first); the quiz seed is here's, else the file's (the order the learner sees here stays).
 */
export function mergeProgress(here: Progress, file: Progress): Progress {
  const scenarios = Object.fromEntries(
    SCENARIO_CATALOG.filter((s) => here.scenarios[s.id] || file.scenarios[s.id]).map((s) => [s.id, mergeScenario(here.scenarios[s.id], file.scenarios[s.id])]),
  );
  const quizIds = [...new Set([...Object.keys(here.quizzes), ...Object.keys(file.quizzes)])];
  const quizzes = Object.fromEntries(
    quizIds.map((id) => {
      const a = here.quizzes[id];
      const b = file.quizzes[id];
      return [id, (answerRank(b) > answerRank(a) ? b : a)!];
    }),
  );
  const sorting = !here.sorting ? file.sorting : file.sorting && file.sorting.correct > here.sorting.correct ? file.sorting : here.sorting;
  const quizSeed = here.quizSeed ?? file.quizSeed;
  return { version: 1, scenarios, quizzes, ...(sorting ? { sorting } : {}), ...(quizSeed ? { quizSeed } : {}) };
}

/** Merge: the progress merged, and each lesson's code here kept, the file's filling lessons with none. */
export function mergeInto(here: Saved, file: Saved): Saved {
  return { progress: mergeProgress(here.progress, file.progress), code: { ...file.code, ...here.code } };
}

/** Replace: the file's progress and code, and no code for lessons the file has none for. */
export function replaceWith(file: Saved): Saved {
  return { progress: file.progress, code: { ...file.code } };
}
