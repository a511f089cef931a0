'use client';
/**
 * The embed's only chrome: what this is, a way out to the full site (in a new tab, so the host
 * page stays), and where its events go — or why they go nowhere.
 */
import type { ParentTarget } from './embed-channel';

export function EmbedBar({ title, href, target }: { title: string; href: string; target: ParentTarget | null }) {
  return (
    <div className="mb-3 flex flex-wrap items-center justify-between gap-x-4 gap-y-1 border-b border-slate-200 pb-2 text-sm dark:border-slate-800">
      {/* The embed's page heading (axe: a page needs an h1), the lab's or question's title. */}
      <h1 className="flex items-center gap-2 text-sm font-semibold text-slate-900 dark:text-white">
        <span aria-hidden="true" className="grid size-6 place-items-center rounded-md bg-teal-700 font-mono text-[10px] font-bold text-white dark:bg-teal-500 dark:text-slate-950">
          1×
        </span>
        <span>
          <span className="sr-only">Effectively Once: </span>
          {title}
        </span>
      </h1>
      <div className="flex items-center gap-4">
        <p data-testid="embed-target" data-origin={target?.origin ?? ''} className="text-xs text-slate-500 dark:text-slate-400">
          {target?.problem ?? (target?.origin ? `Reports to ${target.origin}` : target ? 'Not reporting to a host page' : '')}
        </p>
        <a
          href={href}
          target="_blank"
          rel="noopener"
          className="rounded text-xs font-medium text-teal-800 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 dark:text-teal-300"
        >
          Open in Effectively Once<span aria-hidden="true"> ↗</span>
          <span className="sr-only"> (opens in a new tab)</span>
        </a>
      </div>
    </div>
  );
}
