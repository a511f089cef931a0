'use client';
/**
 * "Export my progress" and "Import progress" on the course map. Export saves one JSON file
 * (progress-file.ts). Import reads a chosen file, refuses a wrong, damaged, foreign or oversized one
 * with the reason, otherwise shows what it holds (and any part left out) and asks: Merge, Replace or
 * Cancel. Whatever was here before an import comes back with Undo. Every step is a native button;
 * the keyboard moves with the dialog (to its heading, to Undo, back to Import).
 */
import { useEffect, useId, useRef, useState } from 'react';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import { readAllSavedCode, writeSavedCode } from '@/components/lab/saved-code';
import { currentProgress, restoreProgress, type DroppedPart } from './progress';
import {
  buildProgressFile,
  codeConflicts,
  fileSizeError,
  holdings,
  mergeInto,
  progressFileName,
  readProgressFile,
  replaceWith,
  type Saved,
} from './progress-file';
import { lessonName } from './progress-schema';

const LESSON_IDS = SCENARIO_CATALOG.map((s) => s.id as string);

export const smallBtn =
  'rounded-md px-2 py-1 text-sm font-medium text-teal-900 ring-1 ring-teal-700/40 hover:bg-teal-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-teal-100 dark:ring-teal-400/40 dark:hover:bg-teal-900/40';
const strongBtn =
  'rounded-md px-2 py-1 text-sm font-semibold bg-teal-700 text-white ring-1 ring-teal-700 hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-teal-400 dark:text-slate-950 dark:ring-teal-400 dark:hover:bg-teal-300';

function currentSaved(): Saved {
  return { progress: currentProgress(), code: readAllSavedCode(LESSON_IDS) };
}

/** Store `saved` as this browser's progress and code; the lessons whose code storage refused. */
function store(saved: Saved): string[] {
  restoreProgress(saved.progress);
  return LESSON_IDS.filter((id) => !writeSavedCode(id, saved.code[id] ?? null));
}

type Step =
  | { kind: 'idle' }
  | { kind: 'error'; message: string }
  | { kind: 'review'; name: string; saved: Saved; exportedAt: string | null; dropped: DroppedPart[]; conflicts: string[] }
  | { kind: 'done'; how: 'merged' | 'replaced'; undo: Saved; unstored: string[] }
  | { kind: 'undone' };

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function HoldingsList({ saved }: { saved: Saved }) {
  const h = holdings(saved);
  const items = [
    `${plural(h.lessonsDone, 'lesson')} done, ${h.lessonsStarted} more started`,
    plural(h.predictions, 'prediction'),
    `${plural(h.answers, 'answer')} to questions (${h.answersRight} right)`,
    h.sorting ? 'the sorting exercise' : 'no sorting exercise',
    `saved code for ${plural(h.code, 'lesson')}`,
  ];
  return (
    <ul className="mt-1 list-disc space-y-0.5 pl-5" data-testid="import-holdings">
      {items.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ul>
  );
}

export function ProgressFile() {
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const inputRef = useRef<HTMLInputElement>(null);
  const importRef = useRef<HTMLButtonElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const undoRef = useRef<HTMLButtonElement>(null);
  const errorRef = useRef<HTMLParagraphElement>(null);
  const uid = useId();
  // The button pressed goes away with each step: keep the keyboard on what replaced it.
  const moved = useRef(false);
  useEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    if (step.kind === 'review') headingRef.current?.focus();
    else if (step.kind === 'done') undoRef.current?.focus();
    else if (step.kind === 'error') errorRef.current?.focus();
    else importRef.current?.focus();
  }, [step]);
  const go = (next: Step) => {
    moved.current = true;
    setStep(next);
  };

  function exportFile() {
    const now = new Date();
    const blob = new Blob([JSON.stringify(buildProgressFile(currentSaved(), now), null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = progressFileName(now);
    document.body.append(a);
    a.click();
    a.remove();
    // The download has its own copy once the click is handled.
    requestAnimationFrame(() => URL.revokeObjectURL(url));
  }

  async function onChosen(file: File | undefined) {
    if (inputRef.current) inputRef.current.value = '';
    if (!file) return;
    const sizeError = fileSizeError(file.size);
    if (sizeError) return go({ kind: 'error', message: `${file.name}: ${sizeError}` });
    let text: string;
    try {
      text = await file.text();
    } catch {
      return go({ kind: 'error', message: `${file.name} could not be read from the disk. Try choosing it again.` });
    }
    const read = readProgressFile(text);
    if (!read.ok) return go({ kind: 'error', message: `${file.name}: ${read.error}` });
    go({ kind: 'review', name: file.name, saved: read.saved, exportedAt: read.exportedAt, dropped: read.dropped, conflicts: codeConflicts(currentSaved(), read.saved) });
  }

  function apply(how: 'merged' | 'replaced', file: Saved) {
    const undo = currentSaved();
    const next = how === 'merged' ? mergeInto(undo, file) : replaceWith(file);
    go({ kind: 'done', how, undo, unstored: store(next) });
  }

  const box = 'mt-3 basis-full rounded-lg border border-teal-300 bg-white p-3 text-sm leading-6 text-slate-800 dark:border-teal-700 dark:bg-slate-900 dark:text-slate-100';
  return (
    <div className="mt-3 flex flex-wrap items-center gap-2 text-sm text-teal-900 dark:text-teal-100" data-testid="progress-file">
      <button type="button" className={smallBtn} onClick={exportFile} data-testid="export-progress">
        Export my progress
      </button>
      <button type="button" ref={importRef} className={smallBtn} onClick={() => inputRef.current?.click()} data-testid="import-progress" aria-describedby={`${uid}-hint`}>
        Import progress…
      </button>
      <span id={`${uid}-hint`} className="sr-only">
        Choose a progress file exported from this course on any device.
      </span>
      <input ref={inputRef} type="file" accept="application/json,.json" hidden tabIndex={-1} onChange={(e) => void onChosen(e.target.files?.[0])} data-testid="import-file" />

      {step.kind === 'error' && (
        <div role="alert" className={`${box} border-amber-400 dark:border-amber-500/60`} data-testid="import-error">
          <p ref={errorRef} tabIndex={-1} className="focus:outline-none">
            <strong className="font-semibold">Nothing was imported.</strong> {step.message}
          </p>
          <button type="button" className={`${smallBtn} mt-2`} onClick={() => go({ kind: 'idle' })}>
            Dismiss
          </button>
        </div>
      )}

      {step.kind === 'review' && (
        <section aria-labelledby={`${uid}-review`} className={box} data-testid="import-review">
          <h3 id={`${uid}-review`} ref={headingRef} tabIndex={-1} className="font-semibold focus:outline-none">
            Import {step.name}?
          </h3>
          <p>
            This file{step.exportedAt ? `, exported ${new Date(step.exportedAt).toLocaleString()},` : ''} holds:
          </p>
          <HoldingsList saved={step.saved} />
          {step.dropped.length > 0 && (
            <div className="mt-2" data-testid="import-dropped">
              <p>Some parts of it could not be read and will be left out:</p>
              <ul className="list-disc pl-5">
                {step.dropped.map((d) => (
                  <li key={d.path}>{d.text}</li>
                ))}
              </ul>
            </div>
          )}
          <p className="mt-2">
            <strong className="font-semibold">Merge</strong> keeps everything here and adds what the file has: a lesson counts as done if it is done on
            either side, and the best of each answer and prediction is kept.
            {step.conflicts.length > 0 && (
              <> Your code here is kept for {step.conflicts.map(lessonName).join(', ')}, where the file has different code.</>
            )}{' '}
            <strong className="font-semibold">Replace</strong> makes this browser hold exactly what the file holds, code included. Either way, Undo
            puts back what is here now.
          </p>
          <div className="mt-2 flex flex-wrap gap-2">
            <button type="button" className={strongBtn} onClick={() => apply('merged', step.saved)}>
              Merge
            </button>
            <button type="button" className={smallBtn} onClick={() => apply('replaced', step.saved)}>
              Replace
            </button>
            <button type="button" className={smallBtn} onClick={() => go({ kind: 'idle' })}>
              Cancel
            </button>
          </div>
        </section>
      )}

      {step.kind === 'done' && (
        <div className={box} data-testid="import-done">
          <p role="status">
            Progress {step.how === 'merged' ? 'merged from the file' : 'replaced by the file'}.
            {step.unstored.length > 0 && ` This browser's storage is full: the code for ${step.unstored.map(lessonName).join(', ')} could not be saved.`}
          </p>
          <div className="mt-2 flex flex-wrap gap-2">
            <button
              ref={undoRef}
              type="button"
              className={smallBtn}
              onClick={() => {
                store(step.undo);
                go({ kind: 'undone' });
              }}
            >
              Undo
            </button>
            <button type="button" className={smallBtn} onClick={() => go({ kind: 'idle' })}>
              Dismiss
            </button>
          </div>
        </div>
      )}

      {step.kind === 'undone' && (
        <p role="status" className="basis-full" data-testid="import-undone">
          Import undone: your progress and code are as they were.
        </p>
      )}
    </div>
  );
}
