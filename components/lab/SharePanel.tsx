'use client';
/**
 * "Share": copies a link to what the lab shows (code or variant, seed, fault plan, selected
 * event), next to the trace exports (JSON, Mermaid). Where the clipboard is unavailable or
 * refused, the link or text stays visible in a selected field to copy by hand — nothing is lost.
 */
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { labLinkHref, type LabLinkInput } from '@/simulations/course/share-link';
import { EXPORT_ACTIONS, shareAction, type ActionContext, type LabAction } from './actions/lab-actions';

type Outcome =
  | { kind: 'copying' | 'copied' | 'manual'; url: string }
  | { kind: 'text-copied' | 'text-manual'; label: string; text: string }
  | { kind: 'error'; text: string };

/** The Share button's behaviour: build the URL, try the clipboard, fall back to a visible field; `copy` does the same for any text. */
export function useShareButton(): { share(link: LabLinkInput): void; copy(label: string, text: string): void; outcome: Outcome | null } {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const copy = useCallback((label: string, text: string) => {
    const clipboard = typeof navigator !== 'undefined' ? navigator.clipboard : undefined;
    const manual = { kind: 'text-manual', label, text } as const;
    if (!clipboard?.writeText) {
      setOutcome(manual);
      return;
    }
    clipboard.writeText(text).then(
      () => setOutcome({ kind: 'text-copied', label, text }),
      () => setOutcome(manual),
    );
  }, []);
  const share = useCallback((link: LabLinkInput) => {
    let url: string;
    try {
      url = new URL(labLinkHref(link), window.location.href).href;
    } catch (error) {
      setOutcome({ kind: 'error', text: `This state cannot be shared: ${error instanceof Error ? error.message : String(error)}.` });
      return;
    }
    const clipboard = typeof navigator !== 'undefined' ? navigator.clipboard : undefined;
    if (!clipboard?.writeText) {
      setOutcome({ kind: 'manual', url });
      return;
    }
    setOutcome({ kind: 'copying', url });
    clipboard.writeText(url).then(
      () => setOutcome((o) => (o && 'url' in o && o.url === url ? { kind: 'copied', url } : o)),
      () => setOutcome((o) => (o && 'url' in o && o.url === url ? { kind: 'manual', url } : o)),
    );
  }, []);
  return { share, copy, outcome };
}

const button =
  'inline-flex items-center rounded-lg px-3 py-1.5 text-sm font-semibold shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 disabled:cursor-not-allowed disabled:opacity-50 bg-white text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-700 dark:hover:bg-slate-800';

/** The share row under the controls; `children` are further export buttons. */
export function SharePanel({ ctx, outcome, children }: { ctx: ActionContext; outcome: Outcome | null; children?: ReactNode }) {
  const fieldId = useId();
  const field = useRef<HTMLInputElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const target = outcome?.kind === 'manual' ? field.current : outcome?.kind === 'text-manual' ? area.current : null;
    target?.focus();
    target?.select();
  }, [outcome]);

  return (
    <section
      aria-label="Share and export"
      className="flex flex-wrap items-center gap-3 rounded-xl border border-slate-200 bg-white px-4 py-3 shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <div role="toolbar" aria-label="Share and export" className="flex flex-wrap items-center gap-2">
        {[shareAction, ...EXPORT_ACTIONS].map((a: LabAction) => (
          <button key={a.name} type="button" data-action={a.name} disabled={!a.enabled(ctx)} onClick={() => a.perform(ctx)} className={button}>
            {a.label}
          </button>
        ))}
        {children}
      </div>
      <p role="status" aria-live="polite" data-testid="share-status" className="text-sm text-slate-600 dark:text-slate-300">
        {outcome?.kind === 'copied' && 'Link copied to the clipboard.'}
        {outcome?.kind === 'copying' && 'Copying…'}
        {outcome?.kind === 'manual' && 'Copying is not available here: the link is selected below — copy it with Ctrl+C (⌘C).'}
        {outcome?.kind === 'text-copied' && `${outcome.label} copied to the clipboard.`}
        {outcome?.kind === 'text-manual' && `Copying is not available here: the ${outcome.label} is selected below — copy it with Ctrl+C (⌘C).`}
        {outcome?.kind === 'error' && outcome.text}
      </p>
      {outcome?.kind === 'text-manual' && (
        <textarea
          ref={area}
          readOnly
          aria-label={outcome.label}
          data-testid="copy-text"
          value={outcome.text}
          rows={8}
          className="w-full rounded-lg border border-slate-300 bg-slate-50 p-2 font-mono text-xs text-slate-900 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
        />
      )}
      {outcome && 'url' in outcome && (
        <div className="flex w-full items-center gap-2">
          <label htmlFor={fieldId} className="shrink-0 text-xs font-medium text-slate-700 dark:text-slate-300">
            Share link
          </label>
          <input
            ref={field}
            id={fieldId}
            data-testid="share-url"
            readOnly
            value={outcome.url}
            onFocus={(e) => e.currentTarget.select()}
            className="w-full rounded-lg border border-slate-300 bg-slate-50 px-2 py-1 font-mono text-xs text-slate-900 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
          />
        </div>
      )}
    </section>
  );
}
