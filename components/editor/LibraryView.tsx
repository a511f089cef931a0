'use client';
/**
 * The reader for library code: a library file's real source (the text the run executes), read-only,
 * at a line, under a header that names the file and says it is library code, with the way back
 * (the button, or Escape). With the full editor it is a read-only Monaco editor; with the plain
 * editor, and until Monaco has loaded, the same text as numbered lines. The source text loads on
 * first use, not with the page.
 */
import dynamic from 'next/dynamic';
import { useEffect, useRef, useState } from 'react';
import type { EditorKind } from './editor-kind';
import type { LibraryLocation } from './library';

export interface LibraryViewProps {
  at: LibraryLocation;
  /** Which editor the learner has: the reader matches it. */
  kind: EditorKind | null;
  /** What the way back says: "Back to your code". */
  backLabel: string;
  onClose(): void;
}

type Sources = Readonly<Record<string, string>>;

let sourcesLoad: Promise<Sources> | null = null;

function loadSources(): Promise<Sources> {
  sourcesLoad ??= import('@/simulations/learner/library-sources.generated').then((m) => m.LIBRARY_SOURCES);
  return sourcesLoad;
}

export function LibraryView({ at, kind, backLabel, onClose }: LibraryViewProps) {
  const [sources, setSources] = useState<Sources | null>(null);
  useEffect(() => {
    let live = true;
    void loadSources().then((s) => live && setSources(s));
    return () => {
      live = false;
    };
  }, []);
  const [monacoReady, setMonacoReady] = useState(false);
  // In a column that scrolls (the lab's workspace), the reader comes into view whole where it can.
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => {
    region.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  const name = at.file.split('/').at(-1) ?? at.file;

  return (
    <div
      ref={region}
      role="region"
      aria-label={`Library code: ${at.file}, read-only`}
      data-testid="library-view"
      data-library-file={at.file}
      data-library-line={at.line}
      data-lab-keys="off"
      className="flex h-full min-h-0 flex-col bg-white dark:bg-[#0b1120]"
      onKeyDown={(event) => {
        // Monaco handles its own Escape (it closes its find box first); from the header and the plain reader, Escape goes back.
        if (event.key === 'Escape' && !(event.target as HTMLElement).closest('.monaco-editor')) {
          event.preventDefault();
          onClose();
        }
      }}
    >
      <div className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1 border-b border-amber-300 bg-amber-50 px-3 py-1 text-xs text-amber-950 dark:border-amber-400/40 dark:bg-amber-500/10 dark:text-amber-100">
        <p className="min-w-0" title="The code the run executes, imported from 'effectively-once'">
          <span className="font-semibold">Library code</span> · <code className="font-mono font-semibold">{at.file}</code> · read-only
          <span className="sr-only">, at line {at.line}: the code the run executes, imported from &apos;effectively-once&apos;</span>
        </p>
        <button
          type="button"
          data-testid="library-back"
          onClick={onClose}
          className="shrink-0 rounded-md bg-slate-800 px-2 py-0.5 font-semibold text-white hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-slate-200 dark:text-slate-900 dark:hover:bg-white"
        >
          {backLabel} <kbd className="hidden font-sans font-normal opacity-80 sm:inline">Esc</kbd>
        </button>
      </div>
      <div className="relative min-h-0 flex-1">
        {kind === 'full' && (
          <div className={monacoReady ? 'absolute inset-0' : 'absolute inset-0 opacity-0'}>
            <LibrarySourceEditor at={at} onClose={onClose} ariaLabel={`${name}, library code, read-only`} onMounted={() => setMonacoReady(true)} />
          </div>
        )}
        {(kind !== 'full' || !monacoReady) && <PlainSource at={at} text={sources?.[at.file] ?? null} label={`${name}, library code, read-only`} focus={kind !== 'full'} />}
      </div>
    </div>
  );
}

const LibrarySourceEditor = dynamic(() => import('./LibrarySourceEditor'), { ssr: false, loading: () => null });

/** The source as numbered lines, the line of the definition marked and scrolled to. */
function PlainSource({ at, text, label, focus }: { at: LibraryLocation; text: string | null; label: string; focus: boolean }) {
  const box = useRef<HTMLPreElement>(null);
  const target = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (text === null) return;
    const el = box.current;
    const line = target.current;
    if (el && line) el.scrollTop = Math.max(0, line.offsetTop - 2 * line.offsetHeight);
    if (focus) el?.focus();
  }, [text, at.file, at.line, focus]);
  if (text === null) return <p className="p-4 text-sm text-slate-600 dark:text-slate-300">Loading {at.file}…</p>;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return (
    <pre
      ref={box}
      tabIndex={0}
      aria-label={label}
      data-testid="library-plain"
      className="absolute inset-0 m-0 overflow-auto py-3 font-mono text-[13px] leading-5 text-slate-800 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-teal-600 dark:text-slate-200"
    >
      <code>
        {lines.map((line, i) => (
          <span
            key={i}
            ref={i + 1 === at.line ? target : undefined}
            data-line={i + 1}
            className={`block pr-4 ${i + 1 === at.line ? 'bg-amber-100 dark:bg-amber-500/20' : ''}`}
          >
            <span
              aria-hidden="true"
              className={`inline-block w-12 pr-3 text-right select-none ${i + 1 === at.line ? 'text-slate-800 dark:text-slate-100' : 'text-slate-500 dark:text-slate-400'}`}
            >
              {i + 1}
            </span>
            {line}
          </span>
        ))}
      </code>
    </pre>
  );
}
