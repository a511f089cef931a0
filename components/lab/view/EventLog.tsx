'use client';
/**
 * The run narrated, one line per visible event: the text alternative to the timeline, with the
 * same selection. Each line is a button; the selected one is marked with aria-current. The list is
 * one stop for Tab (the selected line's button; a run has dozens of events): ↑/↓, Home and End
 * move along it, selecting as they go.
 */
import { memo, useEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import type { LabRun } from '@/simulations/run/lab-run';
import type { TraceEvent } from '@/simulations/engine/types';
import { faultLabel, formatSimTime, markKind, simClockTime } from './snapshots';

export interface EventLogProps {
  run: LabRun;
  /** The selected trace event index. */
  selected: number;
  /** Events after this index are not listed yet (playback). */
  visibleUpTo: number;
  onSelect: (i: number) => void;
}

export function EventLog({ run, selected, visibleUpTo, onSelect }: EventLogProps) {
  const list = useRef<HTMLOListElement>(null);
  const visible = run.result.trace.filter((e) => e.i <= visibleUpTo);
  // One width for the time column, the whole run's longest time ("14 h 59 min 0.2 s"), so every
  // line's text starts at the same place and does not move as the run plays.
  const timeWidth = useMemo(() => timeColumnWidth(run.result.trace), [run]);

  // Scroll the list itself (not the page) so the selected line stays in view.
  useEffect(() => {
    const box = list.current;
    const line = box?.querySelector<HTMLElement>('[aria-current="step"]');
    if (!box || !line) return;
    const top = line.offsetTop; // the list is positioned, so it is the offset parent
    if (top < box.scrollTop || top + line.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 2 + line.offsetHeight / 2);
    }
  }, [selected, visibleUpTo]);

  // The one line Tab stops at: the selected one, or the last visible one.
  const tabStop = visible.some((e) => e.i === selected) ? selected : (visible.at(-1)?.i ?? -1);

  function onKeyDown(event: KeyboardEvent<HTMLOListElement>) {
    const keys: Record<string, (at: number) => number> = {
      ArrowDown: (at) => at + 1,
      ArrowUp: (at) => at - 1,
      Home: () => 0,
      End: () => visible.length - 1,
    };
    const move = keys[event.key];
    const from = Number((event.target as HTMLElement).closest('[data-event]')?.getAttribute('data-event'));
    if (!move || !Number.isInteger(from)) return;
    // Ours, not the lab's shortcuts (which step with ←/→ and jump with Home/End without moving focus).
    event.preventDefault();
    event.stopPropagation();
    const at = Math.min(visible.length - 1, Math.max(0, move(visible.findIndex((e) => e.i === from))));
    const target = visible[at];
    if (!target) return;
    onSelect(target.i);
    list.current?.querySelector<HTMLButtonElement>(`[data-event="${target.i}"]`)?.focus();
  }

  if (visible.length === 0) {
    return <p className="rounded-lg border border-dashed border-slate-300 px-3 py-4 text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">No events yet: run the scenario to see what happens.</p>;
  }


  return (
    <ol ref={list} aria-label="Event log" onKeyDown={onKeyDown} className="relative max-h-80 space-y-px overflow-y-auto rounded-lg border border-slate-200 p-1 dark:border-slate-800">
      {visible.map((e, k) => (
        <EventLine key={e.i} event={e} clock={clockShown(e, visible[k - 1])} timeWidth={timeWidth} selected={e.i === selected} tabStop={e.i === tabStop} onSelect={onSelect} />
      ))}
    </ol>
  );
}

/**
 * One line of the log. Memoised: moving the selection re-renders the two lines whose state changed,
 * not every line — a run stopped at the step limit has 5,000 of them, and each step back took
 * ~0.6 s of the main thread when they were all rendered again.
 */
/** The full SQL of a database event, when its narration shows it cut ("SELECT … ORDE…"); null otherwise. */
export function fullSql(e: Pick<TraceEvent, 'type' | 'text' | 'data'>): string | null {
  if (e.type !== 'db' && e.type !== 'db-error') return null;
  const sql = (e.data as { sql?: unknown } | undefined)?.sql;
  if (typeof sql !== 'string') return null;
  const flat = sql.replace(/\s+/g, ' ').trim();
  return e.text.includes(flat) ? null : sql.trim();
}

const EventLine = memo(function EventLine({
  event: e,
  clock,
  timeWidth,
  selected,
  tabStop,
  onSelect,
}: {
  event: TraceEvent;
  /** The wall-clock time to show under the time since the start, when the log reaches a new minute past the first hour. */
  clock: string | null;
  /** The time column's width, in characters of its monospaced font. */
  timeWidth: number;
  selected: boolean;
  tabStop: boolean;
  onSelect: (i: number) => void;
}) {
  const flag = faultLabel(e);
  const kind = markKind(e);
  const severe = kind === 'crash' || kind === 'lost' || kind === 'error' || kind === 'rollback';
  const sql = fullSql(e);
  const [open, setOpen] = useState(false);
  const sqlId = `event-sql-${e.i}`;
  return (
    <li className={sql ? 'relative' : undefined}>
      <button
        type="button"
        data-event={e.i}
        tabIndex={tabStop ? 0 : -1}
        onClick={() => onSelect(e.i)}
        aria-current={selected ? 'step' : undefined}
        className={`flex w-full flex-wrap items-baseline gap-x-2 rounded-md sm:flex-nowrap px-2 py-1 text-left text-sm focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-teal-600 ${
          selected
            ? 'bg-teal-50 text-slate-900 ring-1 ring-teal-600/40 dark:bg-teal-400/15 dark:text-white dark:ring-teal-400/40'
            : 'text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800'
        }`}
      >
        <span className="w-6 shrink-0 text-right font-mono text-[11px] text-slate-500 tabular-nums dark:text-slate-400">
          <span className="sr-only">Event </span>
          {e.i + 1}
        </span>
        <span style={{ '--time-w': `${timeWidth}ch` } as CSSProperties} className="shrink-0 font-mono sm:w-(--time-w) text-xs whitespace-nowrap text-slate-500 tabular-nums dark:text-slate-400">
          {formatSimTime(e.t)}
          {clock && <span className="block text-[11px] text-slate-500 dark:text-slate-400">{clock}</span>}
        </span>
        {/* On a phone the text goes under its number and time, with the whole width to itself. */}
        <span className="min-w-0 flex-1 break-words max-sm:basis-full max-sm:pl-8">
          {flag && (
            <span
              className={`mr-1.5 inline-block rounded px-1.5 py-px text-[10px] font-semibold tracking-wide uppercase ${
                severe ? 'bg-red-100 text-red-800 dark:bg-red-500/20 dark:text-red-200' : 'bg-amber-100 text-amber-900 dark:bg-amber-400/20 dark:text-amber-200'
              }`}
            >
              {flag}
            </span>
          )}
          {flag && <span className="sr-only">: </span>}
          {e.text}
        </span>
      </button>
      {sql && (
        <>
          {/* The narration cuts long statements: the whole text is one click away. */}
          <button
            type="button"
            tabIndex={tabStop || open ? 0 : -1}
            aria-expanded={open}
            aria-controls={open ? sqlId : undefined}
            onClick={() => setOpen((o) => !o)}
            className="ml-8 rounded px-1 text-[11px] font-semibold text-teal-800 underline decoration-teal-600/40 underline-offset-2 hover:decoration-teal-600 focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-teal-300"
          >
            {open ? 'hide SQL' : 'full SQL'}
            <span className="sr-only"> of event {e.i + 1}</span>
          </button>
          {open && (
            <pre id={sqlId} className="mx-2 mt-1 mb-2 overflow-x-auto rounded-md bg-slate-100 px-3 py-2 font-mono text-xs leading-5 whitespace-pre-wrap text-slate-800 dark:bg-slate-800 dark:text-slate-100">
              {sql}
            </pre>
          )}
        </>
      )}
    </li>
  );
});

/**
 * The wall clock beside an event an hour or more into the run (a brief says "at 23:59", the log
 * counts from the start), on the first event of each minute only: "Jan 5, 23:59" once, not on
 * every line of what happened in it.
 */
export function clockShown(e: Pick<TraceEvent, 't'>, previous: Pick<TraceEvent, 't'> | undefined): string | null {
  const clock = simClockTime(e.t);
  if (!clock || !previous) return clock;
  return Math.floor(previous.t / 60_000) === Math.floor(e.t / 60_000) ? null : clock;
}

/** The event log's time column width in characters: its longest time or wall clock, and at least 6. */
export function timeColumnWidth(trace: readonly Pick<TraceEvent, 't'>[]): number {
  let width = 6;
  for (let k = 0; k < trace.length; k++) {
    width = Math.max(width, formatSimTime(trace[k]!.t).length, clockShown(trace[k]!, trace[k - 1])?.length ?? 0);
  }
  return width;
}
