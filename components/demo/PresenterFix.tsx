'use client';
/**
 * Presenter mode's "The fix" (F): what the solution changes in the starter, as a line diff in
 * projector type — the moment between "watch it break" and "watch it hold". A modal dialog like
 * "Explore both": Escape or Close ends it, and the demonstration keeps its place underneath.
 */
import { useEffect, useMemo, useRef } from 'react';
import { codeDiff, diffSummary } from '@/components/lab/code-diff';
import { CodeDiff } from '@/components/lab/CodeDiff';
import type { LabScenario } from '@/components/lab/lab-scenario';

/** Unchanged lines kept around each change; longer stretches fold, so a fix fits a projector. */
const CONTEXT = 2;

export function PresenterFix({ scenario, onClose }: { scenario: LabScenario; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  // As in "Explore both", the heading takes the focus: a presenter's habitual Space must not close it.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    heading.current?.focus();
    return () => d?.close();
  }, []);

  const { starter, solution } = scenario.variants;
  const diff = useMemo(() => codeDiff(starter.code, solution.code, { context: CONTEXT }), [starter.code, solution.code]);
  const summary = diffSummary(diff) ?? 'no lines';

  return (
    <dialog
      ref={dialog}
      aria-labelledby="presenter-fix-title"
      data-testid="presenter-fix"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className="m-auto max-h-[94vh] w-[min(80rem,96vw)] rounded-2xl border-4 border-slate-950 bg-white p-8 text-slate-950 backdrop:bg-slate-950/70 short:p-5 dark:border-slate-200 dark:bg-slate-950 dark:text-white"
    >
      <h2 id="presenter-fix-title" ref={heading} tabIndex={-1} className="text-3xl font-extrabold outline-none short:text-2xl">
        {scenario.title} — the fix
      </h2>
      <p className="mt-2 text-xl text-slate-700 short:text-lg dark:text-slate-300" data-testid="presenter-fix-summary">
        From the starter to the solution: {summary}.
      </p>
      <div className="mt-5 overflow-hidden rounded-xl border-2 border-slate-300 short:mt-3 dark:border-slate-700">
        <CodeDiff rows={diff.rows} label={`What the solution changes: ${summary}`} before="the starter" after="the solution" size="large" />
      </div>
      <div className="mt-6 flex items-end justify-between gap-6 short:mt-4">
        {/* Under the code: the room reads the change first, then why it works. */}
        <p className="text-lg text-slate-700 short:text-base dark:text-slate-300">{solution.explanation}</p>
        <button
          type="button"
          onClick={onClose}
          className="shrink-0 rounded-xl bg-white px-5 py-3 text-xl font-bold whitespace-nowrap text-slate-950 ring-2 ring-slate-900 hover:bg-slate-100 focus-visible:outline-4 focus-visible:outline-offset-2 focus-visible:outline-amber-400 dark:bg-slate-900 dark:text-white dark:ring-slate-200"
        >
          Close (Esc)
        </button>
      </div>
    </dialog>
  );
}
