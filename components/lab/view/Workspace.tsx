'use client';
/**
 * The lab's layout. From 1280 px wide it is one workspace the height of the screen: the controls
 * across the top, the code on the left, the run on the right (timeline, then verdict, then the
 * other views as panes of one scrolling column), the lesson (the situation, questions, hints)
 * one click away above the code. Narrower, the same parts make one column in the same order.
 *
 * The DOM order is the reading and Tab order at every width: the lesson bar and the situation,
 * the controls (Run), the code, the run. From 1280 px a grid places them, so the controls sit
 * above both columns while the situation, when open, sits above the code.
 */
import { useId, type ReactNode, type RefObject } from 'react';

export interface WorkspaceProps {
  /** The lesson bar and the situation (may be empty: an embed without the brief). */
  lesson: ReactNode;
  controls: ReactNode;
  code: ReactNode;
  run: ReactNode;
  /** The run column, which scrolls on its own from 1280 px: what a control changes is brought into view inside it. */
  runRef?: RefObject<HTMLDivElement | null>;
  /**
   * The workspace's height from 1280 px, as a Tailwind class: the screen below the page's own
   * header by default; an embed fits its frame.
   */
  heightClass?: string;
}

export const WORKSPACE_HEIGHT = 'xl:h-[max(34rem,calc(100dvh-11.5rem))]';

export function Workspace({ lesson, controls, code, run, runRef, heightClass = WORKSPACE_HEIGHT }: WorkspaceProps) {
  return (
    <div
      data-testid="workspace"
      className={`flex flex-col gap-4 xl:grid xl:grid-cols-2 xl:grid-rows-[auto_auto_minmax(0,1fr)] xl:gap-x-5 xl:gap-y-3 ${heightClass}`}
    >
      <div className="min-w-0 space-y-3 xl:col-start-1 xl:row-start-2 xl:max-h-[40dvh] xl:overflow-y-auto xl:pb-1">{lesson}</div>
      <div className="min-w-0 xl:col-span-2 xl:row-start-1">{controls}</div>
      <div className="flex min-h-0 min-w-0 flex-col xl:col-start-1 xl:row-start-3 xl:overflow-y-auto">{code}</div>
      <div
        ref={runRef}
        data-testid="run-column"
        className="min-h-0 min-w-0 space-y-4 xl:col-start-2 xl:row-span-2 xl:row-start-2 xl:overflow-y-auto xl:overscroll-contain xl:pr-1"
      >
        {run}
      </div>
    </div>
  );
}

export interface LessonBarProps {
  /** Whether the situation is open (from 1280 px; narrower it is always shown). */
  open: boolean;
  onToggle(): void;
  /** The id of the situation's region, which the toggle controls. */
  regionId: string;
  /** Questions below the lab: a link to them, with their count. */
  questions?: { href: string; count: number };
  /** Extra entries beside the situation and the questions (a hint ladder's toggle). */
  extra?: ReactNode;
}

const barButton =
  'inline-flex items-center gap-1.5 rounded-lg px-2.5 py-1 text-xs font-semibold text-slate-700 ring-1 ring-slate-300 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-slate-200 dark:ring-slate-700 dark:hover:bg-slate-800';

/** The lesson one click away: the situation's toggle, a link to the questions, and room for hints. */
export function LessonBar({ open, onToggle, regionId, questions, extra }: LessonBarProps) {
  return (
    <nav aria-label="The lesson" data-testid="lesson-bar" className="flex flex-wrap items-center gap-2">
      {/* Narrower than 1280 px the situation is always shown, above the code: no toggle there. */}
      <button type="button" aria-expanded={open} aria-controls={regionId} onClick={onToggle} className={`${barButton.replace('inline-flex ', '')} hidden xl:inline-flex`}>
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
        The situation
      </button>
      {questions && questions.count > 0 && (
        <a href={questions.href} className={barButton}>
          Questions ({questions.count}) <span aria-hidden="true">↓</span>
        </a>
      )}
      {extra}
    </nav>
  );
}

/** One of the run's panes, in the order the run column shows them. */
export interface RunPaneLink {
  id: string;
  label: string;
}

/**
 * Links to the run's panes, each bringing its pane into view inside the run column (not the
 * page). In-page links with the pane's id, so they work as plain anchors too.
 */
export function RunPaneNav({ panes }: { panes: readonly RunPaneLink[] }) {
  const id = useId();
  return (
    <nav aria-labelledby={`${id}-h`} data-testid="run-pane-nav" className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
      <h2 id={`${id}-h`} className="font-semibold text-slate-500 dark:text-slate-400">
        Jump to
      </h2>
      {panes.map((p) => (
        <a
          key={p.id}
          href={`#${p.id}`}
          onClick={(e) => {
            const target = document.getElementById(p.id);
            if (!target) return;
            e.preventDefault();
            target.scrollIntoView({ block: 'start', behavior: 'smooth' });
            // The pane's first focusable, or the pane itself, so the keyboard is where the eye is.
            target.focus({ preventScroll: true });
          }}
          className="rounded font-semibold text-teal-800 underline decoration-teal-600/40 underline-offset-4 hover:decoration-teal-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-teal-300"
        >
          {p.label}
        </a>
      ))}
    </nav>
  );
}

/**
 * A pane of the run column: a target for RunPaneNav (focusable by script only). `folded`: closed
 * behind its label until opened (a compact embed keeps to the code, the timeline and the verdict).
 */
export function RunPane({ id, label, folded = false, children }: { id: string; label: string; folded?: boolean; children: ReactNode }) {
  if (folded) {
    return (
      <details id={id} className="scroll-mt-2 rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <summary className="cursor-pointer px-4 py-3 text-sm font-semibold text-slate-800 dark:text-slate-100">{label}</summary>
        <div className="space-y-4 border-t border-slate-200 p-3 dark:border-slate-800">{children}</div>
      </details>
    );
  }
  return (
    <div id={id} tabIndex={-1} aria-label={label} role="region" className="scroll-mt-2 space-y-4 outline-none">
      {children}
    </div>
  );
}

/**
 * Bring `el` into view inside its scrolling column, moving it the least (and the page only as far
 * as needed): a replay or "Show event N" lands where the learner is looking.
 */
export function bringIntoView(el: Element | null | undefined): void {
  el?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}
