'use client';
/**
 * The code editor as the page first shows it: the code as a plain <pre> (in the static HTML, so it
 * is readable before any script runs), replaced by Monaco once Monaco has loaded and mounted — or,
 * where the learner's device or choice says so (./editor-kind.ts), by the plain text area of
 * ./PlainCodeEditor.tsx, and Monaco is never loaded.
 *
 * Monaco (megabytes of script, plus its TypeScript worker) starts loading once the tab's database
 * has booted and the page is idle, so on a cold load the two do not fight over the CPU and "ready
 * to run" comes first; sooner if the learner reaches for the editor, and after
 * MONACO_AT_LATEST_MS whatever happens.
 */
import dynamic from 'next/dynamic';
import { useEffect, useState } from 'react';
import { useDatabase } from '@/components/db/PgliteProvider';
import type { CodeEditorProps } from './CodeEditor';
import { useEditorKind } from './editor-kind';
import { PlainCodeEditor } from './PlainCodeEditor';

const CodeEditor = dynamic(() => import('./CodeEditor'), { ssr: false, loading: () => null });

/** Load Monaco by now even if the database is still booting. */
const MONACO_AT_LATEST_MS = 4_000;

const LINE_HEIGHT = 20;
const PADDING = 24;

export interface LazyCodeEditorProps extends Omit<CodeEditorProps, 'onReady'> {
  /** Accessible name of the editor region. */
  label: string;
  /** Lines of height to reserve at least (the editor scrolls beyond). */
  minLines?: number;
}

export function LazyCodeEditor({ label, minLines = 14, ...editor }: LazyCodeEditorProps) {
  const [ready, setReady] = useState(false);
  const dbStatus = useDatabase().status;
  // Once allowed, for good: a database restart (a stuck run) must not unmount the editor.
  const [load, setLoad] = useState(false);
  useEffect(() => {
    if (dbStatus === 'booting') return;
    // Let the page take in "ready" (the Run button) before Monaco's evaluation holds the main thread.
    if (typeof requestIdleCallback !== 'function') {
      setLoad(true);
      return;
    }
    const idle = requestIdleCallback(() => setLoad(true), { timeout: 500 });
    return () => cancelIdleCallback(idle);
  }, [dbStatus]);
  useEffect(() => {
    const timer = setTimeout(() => setLoad(true), MONACO_AT_LATEST_MS);
    return () => clearTimeout(timer);
  }, []);
  const kind = useEditorKind();
  const loadNow = () => setLoad(true);
  if (kind === 'plain') {
    return (
      <div role="group" aria-label={label} data-testid="code-editor" data-editor-ready="true" data-editor-kind="plain" className="w-full">
        <PlainCodeEditor value={editor.value} onChange={editor.onChange} ariaLabel={editor.ariaLabel} readOnly={editor.readOnly} markers={editor.markers} />
      </div>
    );
  }
  const lines = Math.max(minLines, editor.value.split('\n').length + 1);
  const height = lines * LINE_HEIGHT + PADDING;

  return (
    <div
      role="group"
      aria-label={label}
      aria-busy={!ready}
      data-testid="code-editor"
      data-editor-ready={ready ? 'true' : 'false'}
      data-editor-kind={kind ?? undefined}
      // Focus inside the editor shows as a ring round it, not only as the caret, for keyboard users.
      className="relative w-full overflow-hidden bg-white outline-offset-[-2px] focus-within:outline-2 focus-within:outline-teal-600 dark:bg-[#0b1120] dark:focus-within:outline-teal-400"
      style={{ height }}
      onPointerDown={loadNow}
      onFocusCapture={loadNow}
    >
      {/* Inert until ready: Monaco's own textarea must not take focus, or be read, behind the fallback. */}
      <div className={ready ? 'h-full' : 'h-full opacity-0'} inert={!ready}>
        {load && kind === 'full' && <CodeEditor {...editor} onReady={() => setReady(true)} />}
      </div>
      {!ready && (
        <pre
          data-testid="code-fallback"
          // Focusable, so keyboard users can scroll the code before the editor arrives (focusing it loads the editor).
          tabIndex={0}
          aria-label="Code (the editor is loading)"
          className="absolute inset-0 m-0 overflow-auto py-3 pr-4 pl-[4.25rem] font-mono text-[13px] leading-5 text-slate-800 dark:text-slate-200"
        >
          <code>{editor.value}</code>
        </pre>
      )}
    </div>
  );
}
