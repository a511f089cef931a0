'use client';
/**
 * Presenter mode's "The fix" (F): what the solution changes in the starter, as a line diff in
 * projector type — the moment between "watch it break" and "watch it hold". A modal dialog like
 * "Explore both": Escape or Close ends it, and the demonstration keeps its place underneath.
 */
import { useMemo } from 'react';
import { codeDiff, diffSummary } from '@/components/lab/code-diff';
import { CodeDiff } from '@/components/lab/CodeDiff';
import type { LabScenario } from '@/components/lab/lab-scenario';
import { PresenterDialog } from './PresenterDialog';

/** Unchanged lines kept around each change; longer stretches fold, so a fix fits a projector. */
const CONTEXT = 2;

export function PresenterFix({ scenario, onClose }: { scenario: LabScenario; onClose: () => void }) {
  const { starter, solution } = scenario.variants;
  const diff = useMemo(() => codeDiff(starter.code, solution.code, { context: CONTEXT }), [starter.code, solution.code]);
  const summary = diffSummary(diff) ?? 'no lines';

  return (
    <PresenterDialog
      id="presenter-fix"
      title={`${scenario.title} — the fix`}
      onClose={onClose}
      size="max-h-[94vh] w-[min(80rem,96vw)]"
      // Under the code: the room reads the change first, then why it works.
      footer={<p className="text-lg text-slate-700 short:text-base dark:text-slate-300">{solution.explanation}</p>}
    >
      <p className="mt-2 text-xl text-slate-700 short:text-lg dark:text-slate-300" data-testid="presenter-fix-summary">
        From the starter to the solution: {summary}.
      </p>
      <div className="mt-5 overflow-hidden rounded-xl border-2 border-slate-300 short:mt-3 dark:border-slate-700">
        <CodeDiff rows={diff.rows} label={`What the solution changes: ${summary}`} before="the starter" after="the solution" size="large" />
      </div>
    </PresenterDialog>
  );
}
