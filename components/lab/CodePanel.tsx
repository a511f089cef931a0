'use client';
/**
 * The code column: "Starter | Solution | Your code" one click apart, the editor, and "Reset to
 * starter" with an Undo that brings the previous text back for ~10 s.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { EditorMarker } from '@/components/editor/CodeEditor';
import { setEditorKind, useEditorKind } from '@/components/editor/editor-kind';
import { LazyCodeEditor } from '@/components/editor/LazyCodeEditor';
import type { LibraryLocation } from '@/components/editor/library';
import { LibraryLinks } from '@/components/editor/LibraryLinks';
import { LibraryView } from '@/components/editor/LibraryView';
import { codeDiff, diffSummary } from './code-diff';
import { CodeDiff } from './CodeDiff';
import type { LabScenario } from './lab-scenario';
import { LEARNER_TYPINGS } from '@/simulations/learner/typings.generated';

const EXTRA_LIBS = LEARNER_TYPINGS;

export type CodeMode = 'starter' | 'solution' | 'yours';

const MODES: { mode: CodeMode; label: string }[] = [
  { mode: 'starter', label: 'Starter' },
  { mode: 'solution', label: 'Solution' },
  { mode: 'yours', label: 'Your code' },
];

const UNDO_MS = 10_000;

export interface CodePanelProps {
  scenario: LabScenario;
  mode: CodeMode;
  onMode(mode: CodeMode): void;
  /** The text the editor shows. */
  text: string;
  revision: number;
  /** The learner typed in "Your code". */
  onEdit(text: string): void;
  /** Whether the learner's code differs from the starter. */
  edited: boolean;
  /** Put the starter into "Your code"; returns the text it replaced. */
  onResetToStarter(): string;
  /** Put `text` back into "Your code". */
  onUndo(text: string): void;
  markers: readonly EditorMarker[];
}

export function CodePanel({ scenario, mode, onMode, text, revision, onEdit, edited, onResetToStarter, onUndo, markers }: CodePanelProps) {
  const [undo, setUndo] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  // Each of the two buttons replaces the other: the keyboard's place follows (it fell to <body>).
  const undoButton = useRef<HTMLButtonElement>(null);
  const resetButton = useRef<HTMLButtonElement>(null);
  const focusNext = useRef<'undo' | 'reset' | null>(null);
  useEffect(() => {
    const next = focusNext.current;
    focusNext.current = null;
    if (next === 'undo') undoButton.current?.focus();
    else if (next === 'reset') resetButton.current?.focus();
  }, [undo, edited]);

  /** The offer to undo goes after a while, but not from under the keyboard: it waits until focus leaves it. */
  function expireUndo() {
    if (undoButton.current !== null && undoButton.current === document.activeElement) timer.current = setTimeout(expireUndo, UNDO_MS);
    else setUndo(null);
  }

  function reset() {
    const previous = onResetToStarter();
    setUndo(previous);
    focusNext.current = 'undo';
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(expireUndo, UNDO_MS);
  }

  function undoReset() {
    if (undo === null) return;
    onUndo(undo);
    setUndo(null);
    focusNext.current = 'reset';
    if (timer.current) clearTimeout(timer.current);
  }

  const variant = mode === 'yours' ? null : scenario.variants[mode];
  const editorKind = useEditorKind();

  // Library code opens over the editor, which stays mounted underneath: the learner's text, caret
  // and undo history are as they were on the way back, and the focus returns where it was.
  const [library, setLibrary] = useState<LibraryLocation | null>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const focusBack = useRef(false);
  function openLibrary(at: LibraryLocation) {
    if (library === null) returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setLibrary(at);
  }
  function closeLibrary() {
    focusBack.current = true;
    setLibrary(null);
  }
  useEffect(() => {
    if (library !== null || !focusBack.current) return;
    focusBack.current = false;
    returnFocus.current?.focus();
  }, [library]);
  // Another lesson or another of its codes closes the reader.
  const codeKey = `${scenario.id}/${mode}`;
  const [libraryFor, setLibraryFor] = useState(codeKey);
  if (libraryFor !== codeKey) {
    setLibraryFor(codeKey);
    setLibrary(null);
  }

  return (
    <section
      aria-labelledby="handler-heading"
      className="flex min-h-0 flex-col overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm xl:h-full dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 dark:border-slate-800">
        <div>
          <h2 id="handler-heading" className="text-sm font-semibold text-slate-900 dark:text-slate-100">
            The code
          </h2>
          <p className="mt-0.5 font-mono text-xs text-slate-500 dark:text-slate-400">
            export async function {scenario.entry}(…)
          </p>
        </div>
        <div role="group" aria-label="Which code" className="inline-flex rounded-lg bg-slate-100 p-0.5 dark:bg-slate-800">
          {MODES.map(({ mode: m, label }) => (
            <button
              key={m}
              type="button"
              aria-pressed={mode === m}
              onClick={() => onMode(m)}
              className={`rounded-md px-3 py-1 text-xs font-semibold focus-visible:outline-2 focus-visible:outline-teal-600 ${
                mode === m
                  ? 'bg-white text-slate-900 shadow-sm dark:bg-slate-950 dark:text-white'
                  : 'text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white'
              }`}
            >
              {label}
              {m === 'yours' && edited && <span className="ml-1 text-amber-700 dark:text-amber-300">•<span className="sr-only"> (edited)</span></span>}
            </button>
          ))}
        </div>
      </div>
      {variant ? (
        <p className="border-b border-slate-200 bg-slate-50 px-4 py-2 text-xs leading-5 text-slate-600 dark:border-slate-800 dark:bg-slate-950/50 dark:text-slate-300">
          <strong className="font-semibold text-slate-800 dark:text-slate-100">{variant.label} (read-only).</strong> {variant.explanation}
        </p>
      ) : (
        <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 bg-slate-50 px-4 py-2 text-xs text-slate-600 dark:border-slate-800 dark:bg-slate-950/50 dark:text-slate-300">
          <p>Your edits are saved in this browser.</p>
          <div className="flex items-center gap-2" aria-live="polite">
            {undo !== null && (
              <span className="flex items-center gap-2" data-testid="undo-notice">
                Restored the starter code.
                <button
                  ref={undoButton}
                  type="button"
                  onClick={undoReset}
                  className="rounded-md bg-slate-800 px-2 py-0.5 font-semibold text-white hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-teal-600 dark:bg-slate-200 dark:text-slate-900"
                >
                  Undo
                </button>
              </span>
            )}
            {edited && undo === null && (
              <button
                ref={resetButton}
                type="button"
                onClick={reset}
                className="rounded-md px-2 py-0.5 font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-white focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800"
              >
                Reset to starter
              </button>
            )}
          </div>
        </div>
      )}
      {/* Before the editor, so a keyboard user reads it before Tab reaches the editor (inside, Tab indents). */}
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1 border-b border-slate-200 px-4 py-2 text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
        {editorKind === 'plain' ? (
          <p data-testid="editor-hint">
            Plain text editor: no type checking or completion here, and Tab moves on to the next control. Problems a run finds are listed under the code, by line.
          </p>
        ) : (
          <p data-testid="editor-hint">
            Inside the editor, Tab indents. <kbd className="font-sans">Esc</kbd> leaves the editor (or <kbd className="font-sans">Ctrl</kbd>+<kbd className="font-sans">M</kbd>,{' '}
            <kbd className="font-sans">Ctrl</kbd>+<kbd className="font-sans">Shift</kbd>+<kbd className="font-sans">M</kbd> on a Mac, lets Tab move focus out).
          </p>
        )}
        {editorKind !== null && (
          <button
            type="button"
            data-testid="editor-switch"
            onClick={() => setEditorKind(editorKind === 'plain' ? 'full' : 'plain')}
            className="shrink-0 rounded font-semibold text-teal-800 underline underline-offset-4 hover:text-teal-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-teal-300 dark:hover:text-teal-100"
          >
            {editorKind === 'plain' ? 'Use the full editor' : 'Use the plain editor'}
          </button>
        )}
      </div>
      <LibraryLinks code={text} onOpen={openLibrary} f12={editorKind === 'full'} />
      {/* From 1280 px the editor fills the column (its own height is the code's, at least 14 lines). While
          it has the focus, the way out is spelled out over its corner. */}
      <div
        className={`group/editor relative min-h-0 xl:min-h-40 xl:flex-1 xl:shrink-0 xl:[&_[data-testid=code-editor]]:h-full! xl:[&_[data-testid=code-editor]]:min-h-40 ${library ? 'min-h-[26rem]' : ''}`}
      >
        <div inert={library !== null} aria-hidden={library !== null || undefined} className={`xl:h-full ${library ? 'invisible' : ''}`}>
          <LazyCodeEditor
            label="Handler code editor"
            ariaLabel={`${mode === 'yours' ? 'Your code' : variant?.label}, TypeScript`}
            path={`file:///${scenario.id}/handler.ts`}
            value={text}
            revision={revision}
            onChange={onEdit}
            extraLibs={EXTRA_LIBS}
            readOnly={mode !== 'yours'}
            markers={markers}
            onOpenLibrary={openLibrary}
          />
        </div>
        {library && (
          <div className="absolute inset-0 z-20">
            <LibraryView at={library} kind={editorKind} backLabel={mode === 'yours' ? 'Back to your code' : 'Back to the code'} onClose={closeLibrary} />
          </div>
        )}
        {editorKind === 'full' && !library && (
          <p
            data-testid="editor-focus-hint"
            aria-hidden="true"
            className="pointer-events-none absolute right-3 bottom-2 z-10 hidden rounded-md bg-slate-900/90 px-2 py-1 text-xs font-medium text-white shadow group-focus-within/editor:block dark:bg-slate-100/90 dark:text-slate-900"
          >
            Esc leaves the editor · Tab indents
          </p>
        )}
      </div>
      {mode !== 'starter' && <CodeChanges scenario={scenario} mode={mode} text={text} />}
    </section>
  );
}

type Against = 'starter' | 'solution';

/**
 * "What changed", under the editor: for the Solution, what it changes in the starter (the fix,
 * line by line); for "Your code", what you changed in the starter, or how your code differs from
 * the solution. Closed, its summary still gives the count, which follows your typing.
 */
function CodeChanges({ scenario, mode, text }: { scenario: LabScenario; mode: 'solution' | 'yours'; text: string }) {
  const [open, setOpen] = useState(false);
  const [against, setAgainst] = useState<Against>('starter');
  const starter = scenario.variants.starter.code;
  const solution = scenario.variants.solution.code;
  const view =
    mode === 'solution'
      ? { before: starter, after: text, beforeName: 'the starter', afterName: 'the solution', title: 'What the solution changes', same: 'nothing', wording: undefined }
      : against === 'starter'
        ? { before: starter, after: text, beforeName: 'the starter', afterName: 'your code', title: 'What you changed in the starter', same: 'nothing yet', wording: undefined }
        : {
            before: text,
            after: solution,
            beforeName: 'your code',
            afterName: 'the solution',
            title: 'Your code beside the solution',
            same: 'the same lines',
            wording: { added: 'only in the solution', removed: 'only in yours' },
          };
  const diff = useMemo(() => codeDiff(view.before, view.after), [view.before, view.after]);
  const summary = diffSummary(diff, view.wording) ?? view.same;

  return (
    <details
      open={open}
      onToggle={(e) => setOpen(e.currentTarget.open)}
      data-testid="code-changes"
      className="border-t border-slate-200 dark:border-slate-800"
    >
      <summary className="cursor-pointer px-4 py-2 text-xs font-semibold text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-teal-600 dark:text-slate-200 dark:hover:bg-slate-800/60">
        {view.title}
        <span className="font-normal text-slate-600 dark:text-slate-300" data-testid="code-changes-summary">
          {' '}
          · {summary}
        </span>
      </summary>
      {open && (
        <div className="border-t border-slate-200 dark:border-slate-800">
          {mode === 'yours' && (
            <div className="flex flex-wrap items-center gap-2 px-4 pt-2 text-xs text-slate-600 dark:text-slate-300">
              <span id="changes-against">Compare your code with</span>
              <div role="group" aria-labelledby="changes-against" className="inline-flex rounded-lg bg-slate-100 p-0.5 dark:bg-slate-800">
                {(['starter', 'solution'] as const).map((a) => (
                  <button
                    key={a}
                    type="button"
                    aria-pressed={against === a}
                    onClick={() => setAgainst(a)}
                    className={`rounded-md px-2.5 py-0.5 font-semibold focus-visible:outline-2 focus-visible:outline-teal-600 ${
                      against === a
                        ? 'bg-white text-slate-900 shadow-sm dark:bg-slate-950 dark:text-white'
                        : 'text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white'
                    }`}
                  >
                    {a === 'starter' ? 'the starter' : 'the solution'}
                  </button>
                ))}
              </div>
            </div>
          )}
          <CodeDiff rows={diff.rows} label={`${view.title}: ${summary}`} before={view.beforeName} after={view.afterName} />
        </div>
      )}
    </details>
  );
}
