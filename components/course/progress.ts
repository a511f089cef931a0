'use client';
/**
 * The learner's progress, kept in this browser (localStorage `eo:progress`) and shared by every
 * tab: lessons visited, predictions made and revealed, passed (the learner's own code — "Your
 * code" — held on the scenario's demonstration plan), explored (the same code then came through an
 * exploration without a violation), quiz answers and the sorting exercise.
 * Nothing leaves the browser. Components read it with `useProgress()`; the server render and the
 * first client render see empty progress, so hydration always matches. What is stored is read
 * through `parseProgress` (progress-schema.ts): a part that does not fit is left out, and
 * `useDroppedProgress()` names it for the notice, so no stored value can break a page.
 */
import { useSyncExternalStore } from 'react';
import { sha256Hex } from '@/lib/op-key';
import { DIGESTS_KEPT, HINTS_KEPT, parseProgressText, type DroppedPart, type Progress, type QuizRecord, type ScenarioProgress } from './progress-schema';

export type { DroppedPart, Progress, QuizRecord, ScenarioProgress } from './progress-schema';
export { parseProgress } from './progress-schema';

export const PROGRESS_KEY = 'eo:progress';

/**
 * Whether a question counts as answered correctly in the scores: right, and not after a wrong
 * answer had shown the right one (picking the answer just revealed is not knowing it).
 */
export function answeredOnOwn(record: QuizRecord | undefined): boolean {
  return !!record?.correct && !record.revealed;
}

/**
 * The questions of a lesson as its chips say it: how many are answered right so far (what "done"
 * means), and, when some were right only after a wrong answer had shown the answer, how many of
 * them on your own (what the scores count).
 */
export function questionsProgress(p: Pick<Progress, 'quizzes'>, ids: readonly string[]): { allRight: boolean; text: string } {
  const right = ids.filter((id) => p.quizzes[id]?.correct).length;
  const own = ids.filter((id) => answeredOnOwn(p.quizzes[id])).length;
  return { allRight: right === ids.length, text: `Questions ${right}/${ids.length}${own < right ? ` (${own} on your own)` : ''}` };
}

const EMPTY: Progress = Object.freeze({ version: 1, scenarios: {}, quizzes: {} }) as Progress;
const NO_PARTS: readonly DroppedPart[] = Object.freeze([]);

function readRaw(): string | null {
  try {
    return window.localStorage.getItem(PROGRESS_KEY);
  } catch {
    return null;
  }
}

// useSyncExternalStore needs the same object while nothing changed: cache by the raw string.
let cachedRaw: string | null = null;
let cached: Progress = EMPTY;
// Storage disabled or full: progress still lives for this page.
let memory: string | null = null;
// The parts of stored progress left out since this page loaded (or since the learner dismissed
// the notice). Kept here, not derived from the stored text: the next write stores the progress
// without them, and the learner must still be told.
let dropped: readonly DroppedPart[] = NO_PARTS;

function snapshot(): Progress {
  const raw = readRaw() ?? memory;
  if (raw !== cachedRaw) {
    cachedRaw = raw;
    const parsed = parseProgressText(raw);
    cached = parsed.progress;
    const known = new Set(dropped.map((d) => d.path));
    const fresh = parsed.dropped.filter((d) => !known.has(d.path));
    if (fresh.length > 0) dropped = [...dropped, ...fresh];
  }
  return cached;
}

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || event.key === PROGRESS_KEY) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** Change the progress and tell every reader in this tab (other tabs hear the storage event). */
export function updateProgress(change: (p: Progress) => Progress): void {
  const next = change(snapshot());
  const raw = JSON.stringify(next);
  memory = raw;
  try {
    window.localStorage.setItem(PROGRESS_KEY, raw);
  } catch {
    /* storage full or disabled: kept in memory for this page */
  }
  for (const l of listeners) l();
}

/** Whether anything has been recorded at all (a fresh learner has nothing to reset). */
export function hasProgress(p: Progress): boolean {
  return Object.keys(p.scenarios).length > 0 || Object.keys(p.quizzes).length > 0 || p.sorting !== undefined;
}

/**
 * Forget every lesson visited and finished, prediction, quiz answer and sorting (a shared classroom
 * machine, a fresh start). The code saved in each lab is kept. Returns what was there, for Undo.
 */
export function resetProgress(): Progress {
  const before = snapshot();
  // The quiz seed stays: it is not progress, and the choices keep the order the learner knows.
  updateProgress((p) => ({ version: 1, scenarios: {}, quizzes: {}, ...(p.quizSeed ? { quizSeed: p.quizSeed } : {}) }));
  return before;
}

/** Put back what `resetProgress` returned. */
export function restoreProgress(p: Progress): void {
  updateProgress(() => p);
}

/** The progress now, outside React (what `useProgress` returns once hydrated). */
export function currentProgress(): Progress {
  return snapshot();
}

/** The current progress (empty on the server and during hydration). */
export function useProgress(): Progress {
  return useSyncExternalStore(subscribe, snapshot, () => EMPTY);
}

/**
 * The parts of the stored progress that could not be read and were left out (each named for the
 * learner), until `dismissDroppedProgress`. Empty on the server and during hydration.
 */
export function useDroppedProgress(): readonly DroppedPart[] {
  return useSyncExternalStore(
    subscribe,
    () => {
      snapshot();
      return dropped;
    },
    () => NO_PARTS,
  );
}

/** The learner has read the notice: store the progress without the unreadable parts, and stop telling. */
export function dismissDroppedProgress(): void {
  dropped = NO_PARTS;
  updateProgress((p) => p);
}

function patchScenario(id: string, patch: (s: ScenarioProgress) => ScenarioProgress): void {
  updateProgress((p) => ({ ...p, scenarios: { ...p.scenarios, [id]: patch(p.scenarios[id] ?? {}) } }));
}

export function markVisited(id: string): void {
  if (snapshot().scenarios[id]?.visited) return;
  patchScenario(id, (s) => ({ ...s, visited: true }));
}

/** A prediction; one made after the learner saw the starter's demonstration end is marked so. */
export function recordPrediction(id: string, choice: string): void {
  patchScenario(id, (s) => ({ ...s, predicted: s.sawOutcome ? { choice, afterSeeing: true } : { choice } }));
}

/** The learner has watched the starter's demonstration end: a prediction from now on is not blind. */
export function markSawOutcome(id: string): void {
  if (snapshot().scenarios[id]?.sawOutcome) return;
  patchScenario(id, (s) => ({ ...s, sawOutcome: true }));
}

/**
 * Whether a lesson's prediction counts: revealed, and made before the learner had seen the
 * outcome (as a quiz answer counts only when it was not picked after the right one was shown).
 */
export function predictedBlind(s: ScenarioProgress | undefined): boolean {
  return s?.predicted?.actual !== undefined && s.predicted.afterSeeing !== true;
}

export function revealPrediction(id: string, actual: string, actualText: string): void {
  patchScenario(id, (s) => (s.predicted ? { ...s, predicted: { ...s.predicted, actual, actualText } } : s));
}

export function clearPrediction(id: string): void {
  patchScenario(id, ({ predicted: _dropped, ...rest }) => rest);
}

/** A short digest of a version of the learner's code, to tell whether two results are about the same code. */
export function codeDigest(code: string): string {
  return sha256Hex(code).slice(0, 16);
}

function remember(list: readonly string[] | undefined, digest: string): string[] {
  return [...(list ?? []).filter((d) => d !== digest), digest].slice(-DIGESTS_KEPT);
}

/** "Your code" (this version of it, by digest) held on the demonstration plan. True when that finished the lesson. */
export function markPassed(id: string, digest: string): boolean {
  const s = snapshot().scenarios[id];
  if (s?.passed && s.heldCode?.at(-1) === digest) return false;
  const before = lessonState(snapshot(), id);
  patchScenario(id, (s) => {
    const heldCode = remember(s.heldCode, digest);
    return { ...s, passed: true, heldCode, ...(s.explored || s.cleanCode?.includes(digest) ? { explored: true } : {}) };
  });
  return before !== 'done' && lessonState(snapshot(), id) === 'done';
}

/** An exploration of "Your code" (this version of it) found schedules that break it. */
export function markExploredBroken(id: string, digest: string, violations: number, runs: number): void {
  patchScenario(id, (s) => ({ ...s, broke: { digest, violations, runs } }));
}

/**
 * An exploration of "Your code" (this version of it) ran all its schedules and none broke an
 * invariant. True when that finished the lesson.
 */
export function markExploredClean(id: string, digest: string): boolean {
  const s = snapshot().scenarios[id];
  if (s?.cleanCode?.at(-1) === digest) return false;
  const before = lessonState(snapshot(), id);
  patchScenario(id, (s) => {
    const cleanCode = remember(s.cleanCode, digest);
    return { ...s, cleanCode, ...(s.explored || s.heldCode?.includes(digest) ? { explored: true } : {}) };
  });
  return before !== 'done' && lessonState(snapshot(), id) === 'done';
}

export function recordQuiz(questionId: string, choice: string, correct: boolean): void {
  updateProgress((p) => {
    const revealed = !correct || p.quizzes[questionId]?.revealed === true;
    return { ...p, quizzes: { ...p.quizzes, [questionId]: revealed ? { choice, correct, revealed } : { choice, correct } } };
  });
}

/** The learner opened rung `hintId` of lesson `id`'s hint ladder (kept once, in first-opened order). */
export function recordHint(id: string, hintId: string): void {
  if (snapshot().scenarios[id]?.hints?.includes(hintId)) return;
  patchScenario(id, (s) => ({ ...s, hints: [...(s.hints ?? []), hintId].slice(0, HINTS_KEPT) }));
}

/** Whether the learner opened rung `hintId` of lesson `id`'s ladder. */
export function hintOpened(s: ScenarioProgress | undefined, hintId: string): boolean {
  return !!s?.hints?.includes(hintId);
}

/** Keep `seed` as the learner's quiz seed (the caller checked it with `isQuizSeed`). */
export function setQuizSeed(seed: string): void {
  if (snapshot().quizSeed === seed) return;
  updateProgress((p) => ({ ...p, quizSeed: seed }));
}

export function recordSorting(choices: Record<string, string>, correct: number, total: number): void {
  updateProgress((p) => ({ ...p, sorting: { choices, correct, total } }));
}

/**
 * How far a lesson is: `done` once the learner's own code held on the demonstration and the same
 * code came through an exploration with no violation.
 */
export type LessonState = 'done' | 'started' | 'new';

/** Done: "Your code" held on the demonstration and the same code came through an exploration. Once done, a lesson stays done. */
export function lessonDone(s: ScenarioProgress | undefined): boolean {
  return !!(s?.passed && s.explored);
}

export function lessonState(p: Progress, id: string): LessonState {
  const s = p.scenarios[id];
  if (lessonDone(s)) return 'done';
  return s?.visited || s?.predicted || s?.passed || s?.cleanCode ? 'started' : 'new';
}

/** Where the learner's own code stands in a lesson, as the map's detail line says it. */
export function codeDetail(state: LessonState, s: ScenarioProgress | undefined): string {
  if (state === 'done') return '✓ Your code held and came through exploration';
  const held = s?.heldCode?.at(-1);
  const clean = s?.cleanCode?.at(-1);
  if (clean && clean !== held && !s?.heldCode?.includes(clean)) return '✓ Explored clean · next: run that code on the demonstration';
  if (held && s?.broke?.digest === held) return `✓ Held on the demonstration · but ${s.broke.violations} of ${s.broke.runs} explored schedules broke it`;
  if (s?.passed) return '✓ Held on the demonstration · next: Explore it';
  return 'Your code has not held yet';
}

/** A progress chip: done or not, and what it says. */
export interface ChipText {
  on: boolean;
  text: string;
}

/**
 * The two chips about the learner's code, for the code now in "Your code" (`current`, a digest;
 * null until the lab has read it): whether this version held on the demonstration and came through
 * an exploration, and what is left to do with it. A lesson once done stays done (the lab says so
 * with a chip of its own), but these two go on speaking of the code on screen: after the lesson, an
 * edit that breaks 80 of 200 schedules is not shown a tick.
 */
export function codeChips(s: ScenarioProgress | undefined, current: string | null, { runs }: { runs: number }): { held: ChipText; explored: ChipText } {
  const done = lessonDone(s);
  // Not read yet (the first moments of a page): say nothing about a version.
  if (current === null) {
    return done
      ? { held: { on: true, text: 'Your code held on the demonstration' }, explored: { on: true, text: `Your code came through ${runs} explored schedules` } }
      : { held: { on: false, text: 'Make “Your code” hold on the demonstration' }, explored: { on: false, text: `Then Explore it: ${runs} schedules, none may break it` } };
  }
  const heldNow = !!s?.heldCode?.includes(current);
  const cleanNow = !!s?.cleanCode?.includes(current);
  const held: ChipText = heldNow
    ? { on: true, text: 'Your current code held on the demonstration' }
    : {
        on: false,
        text: done
          ? 'Your current code has not run on the lesson’s own seed and faults yet'
          : cleanNow || s?.passed
            ? 'Next: Run your current code on the lesson’s own seed and faults'
            : 'Make “Your code” hold on the demonstration',
      };
  const explored: ChipText = cleanNow
    ? { on: true, text: `Your current code came through ${runs} explored schedules` }
    : {
        on: false,
        text:
          s?.broke && s.broke.digest === current
            ? `Explored: ${s.broke.violations} of ${s.broke.runs} schedules broke your current code — replay the counterexample above`
            : done
              ? `Your current code has not been explored yet (${runs} schedules)`
              : `Next: Explore your current code (${runs} schedules, none may break it)`,
      };
  return { held, explored };
}

/** The first lesson, in order, that is not done; null when all are. */
export function nextLesson<T extends { id: string }>(p: Progress, lessons: readonly T[]): T | null {
  return lessons.find((l) => lessonState(p, l.id) !== 'done') ?? null;
}
