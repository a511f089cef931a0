'use client';
/** The lab's working area: the learner's handler in the editor, the database beside it. */
import { useState } from 'react';
import { DbStatus } from '@/components/db/DbStatus';
import { LazyCodeEditor } from '@/components/editor/LazyCodeEditor';
import { LEARNER_TYPINGS } from './learner-typings';
import { QueryPanel } from './QueryPanel';
import { STARTER_SNIPPETS } from './starter-snippets';

const EXTRA_LIBS = { 'file:///node_modules/@types/effectively-once/index.d.ts': LEARNER_TYPINGS };

export function LabWorkbench({ scenarioId }: { scenarioId: string }) {
  const starter = STARTER_SNIPPETS[scenarioId] ?? '';
  const [code, setCode] = useState(starter);
  // Bumped when the page replaces the editor's text (Monaco owns it while the learner types).
  const [revision, setRevision] = useState(0);
  const edited = code !== starter;

  function restore() {
    setCode(starter);
    setRevision((r) => r + 1);
  }

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,7fr)_minmax(0,5fr)]">
      <section
        aria-labelledby="handler-heading"
        className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900"
      >
        <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-4 py-3 dark:border-slate-800">
          <div>
            <h2 id="handler-heading" className="text-sm font-semibold text-slate-900 dark:text-slate-100">
              Your handler
            </h2>
            <p className="mt-0.5 font-mono text-xs text-slate-500 dark:text-slate-400">handler.ts</p>
          </div>
          <div className="flex items-center gap-2">
            {edited && (
              <>
                <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 dark:bg-amber-400/15 dark:text-amber-300">
                  Edited
                </span>
                <button
                  type="button"
                  onClick={restore}
                  className="rounded-md px-2 py-1 text-xs font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
                >
                  Restore the starter code
                </button>
              </>
            )}
          </div>
        </div>
        <LazyCodeEditor
          label="Handler code editor"
          ariaLabel="Handler code, TypeScript"
          path={`file:///${scenarioId}/handler.ts`}
          value={code}
          revision={revision}
          onChange={setCode}
          extraLibs={EXTRA_LIBS}
        />
        <p className="border-t border-slate-200 px-4 py-2 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
          Inside the editor, Tab indents. Press <kbd className="font-sans">Ctrl</kbd>+<kbd className="font-sans">M</kbd>{' '}
          (<kbd className="font-sans">Ctrl</kbd>+<kbd className="font-sans">Shift</kbd>+<kbd className="font-sans">M</kbd> on a Mac) to let Tab move focus out instead.
        </p>
      </section>
      <div className="flex min-w-0 flex-col gap-6">
        <DbStatus />
        <QueryPanel />
      </div>
    </div>
  );
}
