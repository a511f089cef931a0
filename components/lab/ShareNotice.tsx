'use client';
/**
 * What the lab says about a share link it was opened with: why a bad link was ignored, where a
 * link for another lesson belongs, the offer of shared code (viewable, never loaded or run
 * without a click), and what a good link restored.
 */
import type { Ref } from 'react';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';
import type { SharedLink } from './use-share-link';

const box = 'rounded-xl border px-4 py-3 text-sm leading-6 shadow-sm';
const warn = `${box} border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-500/40 dark:bg-amber-400/10 dark:text-amber-100`;
const info = `${box} border-teal-300 bg-teal-50 text-teal-950 dark:border-teal-500/40 dark:bg-teal-400/10 dark:text-teal-100`;
const btn =
  'rounded-md px-3 py-1 text-sm font-semibold shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600';
const primaryBtn = `${btn} bg-teal-700 text-white hover:bg-teal-800 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400`;
const plainBtn = `${btn} bg-white text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800`;

export function ShareNotice({ shared, hasRun, restoredRef }: { shared: SharedLink; hasRun: boolean; restoredRef?: Ref<HTMLParagraphElement> }) {
  const { error, elsewhere, offer, previous, pendingStep, link } = shared;
  const target = elsewhere ? SCENARIO_CATALOG.find((s) => s.id === elsewhere) : null;

  return (
    <div data-testid="share-notice" className="space-y-3 empty:hidden">
      {error && (
        <div role="alert" className={warn} data-testid="share-error">
          <p>
            <strong className="font-semibold">{error}</strong> The lab below is in its usual state: the scenario&apos;s
            demonstration, with your own saved code untouched.
          </p>
          <button type="button" onClick={shared.dismiss} className={`${plainBtn} mt-2`}>
            Dismiss
          </button>
        </div>
      )}
      {target && (
        <div role="alert" className={warn}>
          <p>
            This share link belongs to another lesson.{' '}
            <a className="font-semibold underline" href={`/lab/${target.id}/${typeof window === 'undefined' ? '' : window.location.hash}`}>
              Open it in “{target.title}”
            </a>
          </p>
        </div>
      )}
      {offer !== null && (
        <section aria-labelledby="shared-code-heading" className={info} data-testid="share-offer">
          <h2 id="shared-code-heading" className="font-semibold">
            This link comes with someone else&apos;s code
          </h2>
          <p>
            It has not been loaded and nothing has run. Loading it replaces what is in “Your code” (you can put yours
            back afterwards); it runs only when you press Run.
          </p>
          <details className="mt-2">
            <summary className="cursor-pointer font-medium">View the shared code ({offer.split('\n').length} lines)</summary>
            <pre
              data-testid="shared-code"
              tabIndex={0}
              aria-label="Shared code"
              className="mt-2 max-h-72 overflow-auto rounded-lg bg-white p-3 font-mono text-xs leading-5 text-slate-900 ring-1 ring-slate-200 dark:bg-slate-950 dark:text-slate-100 dark:ring-slate-700"
            >
              {offer}
            </pre>
          </details>
          <div className="mt-3 flex flex-wrap gap-2">
            <button type="button" onClick={shared.loadShared} className={primaryBtn}>
              Load shared code
            </button>
            <button type="button" onClick={shared.keepMine} className={plainBtn}>
              Keep mine
            </button>
          </div>
        </section>
      )}
      {previous !== null && (
        <div role="status" className={info} data-testid="share-loaded">
          <p>The shared code is in “Your code”.{hasRun ? '' : ' Nothing has run yet: it runs when you press Run.'}</p>
          <div className="mt-2 flex flex-wrap gap-2">
            <button type="button" onClick={shared.restorePrevious} className={plainBtn}>
              Put my code back
            </button>
            <button type="button" onClick={shared.dismiss} className={plainBtn}>
              Dismiss
            </button>
          </div>
        </div>
      )}
      {link && !hasRun && (
        <p role="status" ref={restoredRef} tabIndex={-1} className={`${info} focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600`} data-testid="share-restored">
          Opened from a link: {link.variant ? `the ${link.variant} code` : link.code !== undefined ? 'shared code' : 'your code'}, seed{' '}
          {link.seed}, {link.faults.length === 0 ? 'no faults' : `${link.faults.length} fault${link.faults.length === 1 ? '' : 's'}`} in the plan.{' '}
          {pendingStep !== null ? `Press Run to replay the shared run up to event ${pendingStep + 1}.` : 'Press Run to play it.'}
        </p>
      )}
    </div>
  );
}
