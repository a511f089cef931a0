'use client';
/**
 * The plain code editor: a text area with line numbers, for devices Monaco does not work on
 * (phones and tablets: see ./editor-kind.ts) or for anyone who prefers it. No TypeScript checking
 * or completion; the problems a run finds (a throw, a syntax error, a failed statement) are listed
 * under it by line, and choosing one puts the caret on that line.
 */
import { useRef } from 'react';
import type { EditorMarker } from './CodeEditor';

export interface PlainCodeEditorProps {
  value: string;
  onChange(value: string): void;
  /** What a screen reader announces for the text area. */
  ariaLabel: string;
  readOnly?: boolean;
  markers?: readonly EditorMarker[];
}

/** The character offset where 1-based `line` starts in `text` (the end of the text past its last line). */
export function lineStart(text: string, line: number): number {
  let offset = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return offset;
}

export function PlainCodeEditor({ value, onChange, ariaLabel, readOnly = false, markers = [] }: PlainCodeEditorProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const lines = value.split('\n').length;
  const rows = Math.max(12, lines + 1);

  function goTo(marker: EditorMarker) {
    const el = area.current;
    if (!el) return;
    const at = Math.min(lineStart(value, marker.line) + Math.max(0, (marker.column ?? 1) - 1), value.length);
    el.focus();
    el.setSelectionRange(at, at);
    // Bring the line into view: its top, less a line of context.
    el.scrollTop = Math.max(0, (marker.line - 2) * 24);
  }

  return (
    <div data-testid="plain-editor">
      <div className="relative bg-white dark:bg-[#0b1120]">
        <div
          ref={gutter}
          aria-hidden="true"
          className="absolute inset-y-0 left-0 w-12 overflow-hidden border-r border-slate-200 py-3 pr-2 text-right font-mono text-[16px] leading-6 text-slate-500 select-none dark:border-slate-800 dark:text-slate-400"
        >
          {/* Numbers past the last line too, for a text area the learner made taller. */}
          {Array.from({ length: Math.max(lines, rows) + 40 }, (_, i) => (
            <div key={i}>{i + 1}</div>
          ))}
        </div>
        <textarea
          ref={area}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onScroll={(event) => {
            if (gutter.current) gutter.current.scrollTop = event.currentTarget.scrollTop;
          }}
          readOnly={readOnly}
          aria-label={ariaLabel}
          aria-invalid={markers.length > 0 || undefined}
          aria-describedby={markers.length > 0 ? 'plain-editor-problems' : undefined}
          rows={rows}
          wrap="off"
          spellCheck={false}
          autoCapitalize="none"
          autoCorrect="off"
          autoComplete="off"
          // 16 px: smaller text makes iOS zoom the page when the text area takes the focus.
          className="block w-full resize-y bg-transparent py-3 pr-3 pl-15 font-mono text-[16px] leading-6 whitespace-pre text-slate-900 focus:outline-none read-only:text-slate-600 dark:text-slate-100 dark:read-only:text-slate-300"
        />
      </div>
      {markers.length > 0 && (
        <div id="plain-editor-problems" className="border-t border-red-200 bg-red-50 px-4 py-2 text-sm dark:border-red-400/30 dark:bg-red-500/10">
          <h3 className="font-semibold text-red-900 dark:text-red-100">Problems in this code</h3>
          <ul className="mt-1 space-y-1">
            {markers.map((marker, i) => (
              <li key={i}>
                <button
                  type="button"
                  onClick={() => goTo(marker)}
                  className="rounded text-left text-red-900 underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-red-100"
                >
                  <span className="font-semibold">Line {marker.line}:</span> {marker.message}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
