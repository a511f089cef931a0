'use client';
/**
 * A unit's state in this browser, read for and written from a course platform. The platform is
 * the authority on whose progress this is: a browser on a classroom machine may hold another
 * learner's progress for the same lesson, so `applySnapshot` replaces the unit's records (its
 * progress, its questions' answers, its sorting, its code) with what the platform kept — or with
 * nothing, on a first launch — instead of merging them.
 * Progress goes through components/course/progress.ts's API; the code through the lab's own key.
 */
import { updateProgress, type Progress } from '@/components/course/progress';
import { storageKey } from '@/components/lab/use-learner-code';
import type { UnitSnapshot } from './suspend-data';

function readCode(unit: string): string | null {
  try {
    return window.localStorage.getItem(storageKey(unit));
  } catch {
    return null;
  }
}

function writeCode(unit: string, code: string | undefined): void {
  try {
    if (code === undefined) window.localStorage.removeItem(storageKey(unit));
    else window.localStorage.setItem(storageKey(unit), code);
  } catch {
    /* storage disabled: the lab keeps its code for this page only */
  }
}

/** The unit's state now: its progress, its questions' answers and (for a lesson) the code saved by the lab. */
export function takeSnapshot(progress: Progress, unit: string, questionIds: readonly string[], { lesson }: { lesson: boolean }): UnitSnapshot {
  const quizzes: UnitSnapshot['quizzes'] = {};
  for (const id of questionIds) {
    const record = progress.quizzes[id];
    if (record) quizzes[id] = record;
  }
  const scenario = lesson ? progress.scenarios[unit] : undefined;
  const code = lesson ? readCode(unit) : null;
  return {
    unit,
    quizzes,
    ...(scenario ? { scenario } : {}),
    ...(lesson && unit === 'replay-safety' && progress.sorting ? { sorting: progress.sorting } : {}),
    ...(code !== null ? { code } : {}),
  };
}

/** Make this browser's records of the unit exactly `snapshot` (null: a first launch, nothing recorded). */
export function applySnapshot(snapshot: UnitSnapshot | null, unit: string, questionIds: readonly string[], { lesson }: { lesson: boolean }): void {
  updateProgress((p) => {
    const quizzes = { ...p.quizzes };
    for (const id of questionIds) delete quizzes[id];
    Object.assign(quizzes, snapshot?.quizzes ?? {});
    const scenarios = { ...p.scenarios };
    if (lesson) {
      delete scenarios[unit];
      if (snapshot?.scenario) scenarios[unit] = snapshot.scenario;
    }
    const next: Progress = { ...p, scenarios, quizzes };
    if (lesson && unit === 'replay-safety') {
      delete next.sorting;
      if (snapshot?.sorting) next.sorting = snapshot.sorting;
    }
    return next;
  });
  if (lesson) writeCode(unit, snapshot?.code);
}
