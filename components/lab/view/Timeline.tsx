'use client';
/**
 * The run as swimlanes: one lane per actor, one column per trace event, an arrow for every event
 * that reaches another actor, faults drawn so they cannot be missed. Every mark is a button; the
 * arrow keys, Home and End move the selection (one tab stop, roving focus). The event log is the
 * text alternative with the same events. The selected event's message travels along its arrow
 * (TravellingMessage), and the queue's messages and the claims' leases at that event are listed
 * under the lanes (QueueAndLeases).
 *
 * Why one file of ~600 lines: the swimlane drawing and the pure layout functions it alone uses
 * (label placement, down spans), which its tests import from here. What travels and the queue and
 * leases strip are their own files.
 */
import { memo, useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { LabRun } from '@/simulations/run/lab-run';
import type { TraceEvent } from '@/simulations/engine/types';
import { downSpans, formatSimTime, markKind, type MarkKind } from './snapshots';
import { QueueAndLeases } from './QueueAndLeases';
import { travelOf } from './travel';
import { TravellingMessage } from './TravellingMessage';

export interface TimelineProps {
  run: LabRun;
  /** Lanes from top to bottom, e.g. ['queue', 'worker-1', 'worker-2', 'postgres', 'email']. */
  actors: string[];
  /** The selected trace event index. */
  selected: number;
  /** Events after this index are not drawn yet (playback). */
  visibleUpTo: number;
  onSelect: (i: number) => void;
  /**
   * 'large' for a projector (presenter mode): lane names and time labels in bigger type, laid out
   * for it (a wider name column, a taller axis); 'medium' for a projector 800 px tall or less.
   * Default 'normal'.
   */
  size?: TimelineSize;
}

export type TimelineSize = 'normal' | 'medium' | 'large';

/** The type sizes that change the layout: the lane-name column, the time axis and its labels. */
interface TypeMetrics {
  /** Width of the lane-name column, px. */
  namesW: number;
  /** Tailwind classes of a lane name. */
  nameText: string;
  /** Time label font size, px (monospace). */
  labelPx: number;
  /** A time label's width per character, a little generous. */
  labelCharW: number;
  /** Height of the time axis above the first lane, and the baselines of its two label rows. */
  axisH: number;
  labelY: [number, number];
  /** Height of one lane, px. */
  laneH: number;
  /** The widest a column grows to, so a short run spreads across the width it is given. */
  maxColW: number;
}

export const TYPE_METRICS: Record<TimelineSize, TypeMetrics> = {
  normal: { namesW: 104, nameText: 'text-xs', labelPx: 10, labelCharW: 6.5, axisH: 40, labelY: [14, 27], laneH: 48, maxColW: 40 },
  // A projector screen 800 px tall or less (1280×720, 1024×768): the lanes closer, the type still 16 px.
  medium: { namesW: 132, nameText: 'text-base', labelPx: 16, labelCharW: 10, axisH: 54, labelY: [19, 42], laneH: 44, maxColW: 110 },
  // A projector: read from the back row (18 px axis text), a short run spread across the screen.
  large: { namesW: 150, nameText: 'text-lg', labelPx: 18, labelCharW: 11, axisH: 64, labelY: [22, 48], laneH: 54, maxColW: 120 },
};

/** Room kept between the end of one time label and the start of the next on the same row. */
const LABEL_MARGIN = 10;

/** How far right of its column's left edge a time label's text starts. */
const LABEL_INSET = 4;

/** The width a time label takes on the axis, for characters `charW` wide. */
export const labelWidth = (text: string, charW: number) => LABEL_INSET + text.length * charW;
/** Where a time label's text starts: its column's left edge, inset, moved left by its shift. */
const labelTextX = (colX: (i: number) => number, colW: number, l: { i: number; shift: number }) => colX(l.i) - colW / 2 + LABEL_INSET - l.shift;

const COL_W = 40;
/** Columns shrink down to this so a run that nearly fits is drawn whole, not scrolled a little. */
const MIN_COL_W = 26;
const PAD_X = 28;
const PAD_BOTTOM = 12;

/** Colours of a mark kind, as Tailwind classes (light and dark). */
const TONE: Record<MarkKind, { fill: string; stroke: string }> = {
  queue: { fill: 'fill-teal-600 dark:fill-teal-400', stroke: 'stroke-teal-600 dark:stroke-teal-400' },
  db: { fill: 'fill-sky-600 dark:fill-sky-400', stroke: 'stroke-sky-600 dark:stroke-sky-400' },
  call: { fill: 'fill-violet-600 dark:fill-violet-400', stroke: 'stroke-violet-600 dark:stroke-violet-400' },
  reply: { fill: 'fill-slate-400 dark:fill-slate-500', stroke: 'stroke-slate-400 dark:stroke-slate-500' },
  process: { fill: 'fill-white dark:fill-slate-900', stroke: 'stroke-slate-400 dark:stroke-slate-500' },
  crash: { fill: 'fill-red-600 dark:fill-red-400', stroke: 'stroke-red-600 dark:stroke-red-400' },
  lost: { fill: 'fill-red-600 dark:fill-red-400', stroke: 'stroke-red-600 dark:stroke-red-400' },
  redeliver: { fill: 'fill-amber-500 dark:fill-amber-400', stroke: 'stroke-amber-500 dark:stroke-amber-400' },
  rollback: { fill: 'fill-orange-600 dark:fill-orange-400', stroke: 'stroke-orange-600 dark:stroke-orange-400' },
  error: { fill: 'fill-red-600 dark:fill-red-400', stroke: 'stroke-red-600 dark:stroke-red-400' },
};

/** The legend, in reading order. */
export const MARK_LEGEND: { kind: MarkKind; label: string }[] = [
  { kind: 'queue', label: 'Queue: deliver, ack, publish' },
  { kind: 'db', label: 'Database statement' },
  { kind: 'call', label: 'Provider call' },
  { kind: 'reply', label: 'Reply' },
  { kind: 'process', label: 'Start, restart, finish, log' },
  { kind: 'crash', label: 'Crash' },
  { kind: 'lost', label: 'Lost or slow response, timeout' },
  { kind: 'redeliver', label: 'Redelivery, duplicate delivery' },
  { kind: 'rollback', label: 'Rollback' },
  { kind: 'error', label: 'Error, dead letter' },
];

const KINDS_WITH_ARROWS = Object.keys(TONE) as MarkKind[];

/** The dashed outline of a crashed process's hatched stretch (lanes and legend alike). */
const DOWN_STROKE = 'stroke-red-400/50 dark:stroke-red-400/40';

function laneIndex(actors: string[], name: string | undefined): number {
  return name === undefined ? -1 : actors.indexOf(name);
}

/** The lane an event's mark sits on: its actor's, else its target's; null when neither is shown. */
function laneOf(e: TraceEvent, actors: string[]): number | null {
  const own = laneIndex(actors, e.actor);
  if (own >= 0) return own;
  const target = laneIndex(actors, e.target);
  return target >= 0 ? target : null;
}

/** The x of event `i`'s column centre, for columns `colW` wide. */
const columnX = (colW: number) => (i: number) => PAD_X + i * colW + colW / 2;

/**
 * Where the timeline scrolls to bring x `target` to its left edge: snapped to a column's edge so the
 * first mark in view is whole, then moved back to the start of any time label that edge would cut
 * ("30.0 s" must not read as "0.0 s" above the 30-second events).
 */
export function scrollStart(target: number, colW: number, labels: readonly { i: number; text: string }[], labelCharW = TYPE_METRICS.normal.labelCharW): number {
  if (target <= PAD_X) return 0;
  let start = PAD_X + Math.round((target - PAD_X) / colW) * colW;
  for (let moved = true; moved; ) {
    moved = false;
    for (const l of labels) {
      const edge = PAD_X + l.i * colW;
      if (edge < start && edge + labelWidth(l.text, labelCharW) > start) {
        start = edge;
        moved = true;
      }
    }
  }
  return start <= PAD_X ? 0 : start;
}

/**
 * The time labels a view of the drawing from x `left`, `viewW` wide, would cut: their text starts
 * before one edge and ends after it. They are hidden, so a label reads whole or not at all
 * (scrolled right, "30.0 s" showed as a lone "s" beside the lane names; "25 h 0 min 3.0 s" cut at
 * the right edge read "25 h 0"). Event indexes, in label order; none before the view is measured.
 */
export function cutLabels(
  labels: readonly { i: number; text: string; shift: number }[],
  colW: number,
  left: number,
  viewW: number,
  labelCharW = TYPE_METRICS.normal.labelCharW,
): number[] {
  if (!(viewW > 0)) return [];
  const right = left + viewW;
  const colX = columnX(colW);
  const cut: number[] = [];
  for (const l of labels) {
    // Where the <text> below starts and ends.
    const start = labelTextX(colX, colW, l);
    const end = start + l.text.length * labelCharW;
    if ((start < left && end > left) || (start < right && end > right)) cut.push(l.i);
  }
  return cut;
}

/** The y of lane `k`'s centre, below an axis `axisH` tall, lanes `laneH` tall. */
const laneYBelow = (axisH: number, laneH: number) => (k: number) => axisH + k * laneH + laneH / 2;

/** The shape of one mark kind, centred on (x, y). */
export function MarkShape({ kind, x, y }: { kind: MarkKind; x: number; y: number }) {
  const tone = TONE[kind];
  switch (kind) {
    case 'db':
      return <rect x={x - 5.5} y={y - 5.5} width={11} height={11} rx={2} className={tone.fill} />;
    case 'reply':
      return <circle cx={x} cy={y} r={3.5} className={tone.fill} />;
    case 'process':
      return <circle cx={x} cy={y} r={4.5} strokeWidth={2} className={`${tone.fill} ${tone.stroke}`} />;
    case 'crash':
      return (
        <g className={tone.stroke} strokeWidth={3.5} strokeLinecap="round">
          <line x1={x - 6.5} y1={y - 6.5} x2={x + 6.5} y2={y + 6.5} />
          <line x1={x - 6.5} y1={y + 6.5} x2={x + 6.5} y2={y - 6.5} />
        </g>
      );
    case 'lost':
      return (
        <g>
          <circle cx={x} cy={y} r={6.5} strokeWidth={2.5} className={`fill-white dark:fill-slate-900 ${tone.stroke}`} />
          <line x1={x} y1={y - 3.5} x2={x} y2={y + 0.5} strokeWidth={2} strokeLinecap="round" className={tone.stroke} />
          <circle cx={x} cy={y + 3} r={1.1} className={tone.fill} />
        </g>
      );
    case 'redeliver':
      return <rect x={x - 5.5} y={y - 5.5} width={11} height={11} rx={1.5} transform={`rotate(45 ${x} ${y})`} className={tone.fill} />;
    case 'rollback':
      return <path d={`M ${x + 6} ${y - 6.5} L ${x + 6} ${y + 6.5} L ${x - 7} ${y} Z`} strokeLinejoin="round" className={tone.fill} />;
    case 'error':
      return (
        <g>
          <circle cx={x} cy={y} r={7} className={tone.fill} />
          <line x1={x} y1={y - 3.5} x2={x} y2={y + 0.5} strokeWidth={2} strokeLinecap="round" className="stroke-white dark:stroke-slate-950" />
          <circle cx={x} cy={y + 3.2} r={1.1} className="fill-white dark:fill-slate-950" />
        </g>
      );
    default:
      return <circle cx={x} cy={y} r={5} className={tone.fill} />;
  }
}

/**
 * Time labels where simulated time moves on, in two rows: each goes on the first row where it
 * clears the label before it ("25 h 0 min 3.0 s" is three times as wide as "0.2 s"). One that
 * clears neither is left out rather than drawn over another ("26 h 0 min 1.26 h 0 min 1.5 s" on a
 * phone): its event still names its time to a screen reader and in the event log.
 */
export function timeLabels(
  events: TraceEvent[],
  colX: (i: number) => number,
  charW = TYPE_METRICS.normal.labelCharW,
  maxX = Infinity,
): { i: number; text: string; row: 0 | 1; shift: number }[] {
  const out: { i: number; text: string; row: 0 | 1; shift: number }[] = [];
  let lastT = Number.NaN;
  const freeFrom: [number, number] = [-Infinity, -Infinity];
  for (const e of events) {
    if (e.t === lastT) continue;
    lastT = e.t;
    const text = formatSimTime(e.t);
    const width = labelWidth(text, charW);
    // A label that would run past the drawing's right edge ends at it instead ("26 h 0 min 1.5"
    // lost its "s" on the last column): it moves left by `shift`.
    const shift = Math.max(0, Math.min(colX(e.i), colX(e.i) + width - maxX));
    const x = colX(e.i) - shift;
    if (x < freeFrom[0] && x < freeFrom[1]) continue;
    const row: 0 | 1 = x >= freeFrom[0] ? 0 : 1;
    freeFrom[row] = x + width + LABEL_MARGIN;
    out.push({ i: e.i, text, row, shift });
  }
  return out;
}

/**
 * The lanes of a run: the lesson's `actors`, and a process only some seeds' worlds have (relay-crash's
 * replica on even seeds) where the run started one, after the last lane of its kind (worker-2 after
 * worker-1), so a lesson's lanes are never empty for a process its demonstration does not have.
 * A process of a kind without a lane is left out, as the actors leave it.
 */
export function lanesFor(actors: readonly string[], trace: readonly TraceEvent[]): string[] {
  const lanes = [...actors];
  for (const e of trace) {
    if (e.type !== 'start' || lanes.includes(e.actor)) continue;
    const kind = e.actor.replace(/-\d+$/, '');
    const last = lanes.findLastIndex((a) => a.replace(/-\d+$/, '') === kind);
    if (last !== -1) lanes.splice(last + 1, 0, e.actor);
  }
  return lanes;
}

export function Timeline({ run, actors: declared, selected, visibleUpTo, onSelect, size = 'normal' }: TimelineProps) {
  const type = TYPE_METRICS[size];
  const { axisH } = type;
  const { laneH } = type;
  const laneY = laneYBelow(axisH, laneH);
  const rawId = useId();
  const id = `tl${rawId.replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const scroller = useRef<HTMLDivElement>(null);
  const group = useRef<HTMLDivElement>(null);
  const marks = useRef(new Map<number, SVGGElement>());
  const register = useCallback((i: number, el: SVGGElement | null) => {
    if (el) marks.current.set(i, el);
    else marks.current.delete(i);
  }, []);

  const trace = run.result.trace;
  const actors = lanesFor(declared, trace);
  // The scroller's width: columns narrow (down to MIN_COL_W) so the whole run fits when it can,
  // rather than scrolling a few pixels and cutting the first label or mark in half.
  const [boxW, setBoxW] = useState(0);
  useEffect(() => {
    const box = scroller.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setBoxW(box.clientWidth));
    observer.observe(box);
    setBoxW(box.clientWidth);
    return () => observer.disconnect();
  }, []);
  const fitW = boxW > 0 && trace.length > 0 ? Math.floor((boxW - PAD_X * 2) / trace.length) : COL_W;
  const colW = Math.max(MIN_COL_W, Math.min(type.maxColW, fitW));
  const colX = columnX(colW);
  const visible = trace.filter((e) => e.i <= visibleUpTo);
  const drawn = visible.filter((e) => laneOf(e, actors) !== null);
  const drawnIdx = drawn.map((e) => e.i);
  const tabStop = drawnIdx.includes(selected) ? selected : (drawnIdx.at(-1) ?? -1);

  // Before anything is visible the lanes fit the box, so there is nothing to scroll to.
  const width = drawn.length === 0 ? 480 : PAD_X * 2 + Math.max(trace.length, 1) * colW;
  const height = axisH + actors.length * laneH + PAD_BOTTOM;
  // A label is drawn from its column's left edge (colX − colW/2): it must end inside the drawing.
  const labels = timeLabels(visible, colX, type.labelCharW, width + colW / 2 - 2);
  const labelsRef = useRef(labels);
  labelsRef.current = labels;

  // Labels the scroller's edges cut are hidden, on every render and every scroll, straight on the
  // DOM: a scroll re-renders nothing (a long run draws thousands of marks), and it hides them before
  // the frame is painted.
  const hideCutLabels = useCallback(() => {
    const box = scroller.current;
    if (!box) return;
    const cut = new Set(cutLabels(labelsRef.current, colW, box.scrollLeft, box.clientWidth, type.labelCharW));
    for (const text of box.querySelectorAll<SVGTextElement>('text[data-time-label]')) {
      if (cut.has(Number(text.dataset.timeLabel))) text.setAttribute('visibility', 'hidden');
      else text.removeAttribute('visibility');
    }
  }, [colW, type.labelCharW]);
  useLayoutEffect(hideCutLabels);
  const downs = downSpans(trace, visibleUpTo).filter((d) => actors.includes(d.actor));
  // What the selected event carries from one lane to another, drawn travelling along its arrow.
  const current = selected >= 0 && selected <= visibleUpTo ? trace[selected] : undefined;
  const travel = current ? travelOf(current, run.result.ledger) : null;
  const travelLanes = travel ? [laneIndex(actors, travel.from), laneIndex(actors, travel.to)] : [];

  // Keep the selected mark in view, and keep focus on it when the keyboard moved the selection.
  useEffect(() => {
    const box = scroller.current;
    if (box && selected >= 0) {
      const x = columnX(colW)(selected);
      const margin = colW * 2;
      if (x < box.scrollLeft + margin || x > box.scrollLeft + box.clientWidth - margin) {
        box.scrollLeft = scrollStart(Math.max(0, x - box.clientWidth / 2), colW, labelsRef.current, type.labelCharW);
      }
    }
    if (group.current?.contains(document.activeElement)) marks.current.get(selected)?.focus();
  }, [selected, colW, type.labelCharW]);

  function onKeyDown(ev: KeyboardEvent<HTMLDivElement>) {
    if (drawnIdx.length === 0) return;
    const pos = drawnIdx.indexOf(tabStop);
    let next: number | undefined;
    if (ev.key === 'ArrowRight') next = drawnIdx[Math.min(pos + 1, drawnIdx.length - 1)];
    else if (ev.key === 'ArrowLeft') next = drawnIdx[Math.max(pos - 1, 0)];
    else if (ev.key === 'Home') next = drawnIdx[0];
    else if (ev.key === 'End') next = drawnIdx[drawnIdx.length - 1];
    else if (ev.key === 'Enter' || ev.key === ' ') next = tabStop;
    else return;
    ev.preventDefault();
    if (next !== undefined) {
      onSelect(next);
      marks.current.get(next)?.focus();
    }
  }

  return (
    <div className="rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <div
        ref={group}
        role="group"
        aria-label={`Timeline: ${drawn.length} of ${trace.length} events shown`}
        aria-describedby={`${id}-help`}
        onKeyDown={onKeyDown}
        className="flex"
      >
        <p id={`${id}-help`} className="sr-only">
          One lane per actor; time runs left to right. Use the left and right arrow keys, Home and End to move between events.
        </p>
        <div aria-hidden="true" data-testid="timeline-lanes" className="shrink-0 border-r border-slate-200 dark:border-slate-800" style={{ width: type.namesW, paddingTop: axisH }}>
          {actors.map((a) => (
            <div
              key={a}
              className={`flex items-center justify-end truncate pr-3 font-mono ${type.nameText} font-medium text-slate-600 dark:text-slate-300`}
              style={{ height: laneH }}
            >
              {a}
            </div>
          ))}
        </div>
        <div ref={scroller} onScroll={hideCutLabels} className="min-w-0 flex-1 overflow-x-auto overscroll-x-contain">
          <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} className="block select-none" aria-hidden={drawn.length === 0 ? true : undefined}>
            <defs>
              <pattern id={`${id}-down`} width={6} height={6} patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <line x1={0} y1={0} x2={0} y2={6} strokeWidth={2} className="stroke-red-400/60 dark:stroke-red-400/35" />
              </pattern>
              {KINDS_WITH_ARROWS.map((k) => (
                <marker key={k} id={`${id}-arrow-${k}`} viewBox="0 0 10 10" refX={9} refY={5} markerWidth={7} markerHeight={7} orient="auto-start-reverse">
                  <path d="M 0 1 L 10 5 L 0 9 z" className={TONE[k].fill === TONE.process.fill ? 'fill-slate-400 dark:fill-slate-500' : TONE[k].fill} />
                </marker>
              ))}
            </defs>

            {/* Lanes, time axis and the time jumps. */}
            <g aria-hidden="true">
              {actors.map((a, k) => (
                <line key={a} x1={0} x2={width} y1={laneY(k)} y2={laneY(k)} strokeWidth={1} className="stroke-slate-200 dark:stroke-slate-700/70" />
              ))}
              <line x1={0} x2={width} y1={axisH - 4} y2={axisH - 4} className="stroke-slate-200 dark:stroke-slate-800" />
              {labels.map((l) => (
                <g key={l.i}>
                  <line
                    x1={colX(l.i) - colW / 2}
                    x2={colX(l.i) - colW / 2}
                    y1={type.labelY[l.row] + 2}
                    y2={height - PAD_BOTTOM}
                    strokeDasharray="2 4"
                    className="stroke-slate-300 dark:stroke-slate-700"
                  />
                  <text
                    data-time-label={l.i}
                    x={labelTextX(colX, colW, l)}
                    y={type.labelY[l.row]}
                    style={{ fontSize: type.labelPx }}
                    className="fill-slate-500 font-mono dark:fill-slate-400"
                  >
                    {l.text}
                  </text>
                </g>
              ))}
              {/* A crashed process's lane is hatched until it restarts: it handles nothing meanwhile. */}
              {downs.map((d) => {
                const y = laneY(actors.indexOf(d.actor));
                const x1 = colX(d.from);
                const x2 = d.restarted ? colX(d.to) : colX(d.to) + colW / 2;
                return (
                  <rect
                    key={`${d.actor}-${d.from}`}
                    data-down={d.actor}
                    data-restarted={d.restarted}
                    x={x1}
                    y={y - 10}
                    width={Math.max(0, x2 - x1)}
                    height={20}
                    fill={`url(#${id}-down)`}
                    strokeDasharray="3 3"
                    className={DOWN_STROKE}
                  />
                );
              })}
              {selected >= 0 && selected <= visibleUpTo && selected < trace.length && (
                <g>
                  <rect x={colX(selected) - colW / 2} y={axisH - 4} width={colW} height={height - axisH - PAD_BOTTOM + 4} className="fill-teal-500/10 dark:fill-teal-400/10" />
                  <line x1={colX(selected)} x2={colX(selected)} y1={axisH - 4} y2={height - PAD_BOTTOM} strokeWidth={1.5} className="stroke-teal-600 dark:stroke-teal-400" />
                </g>
              )}
            </g>

            {drawn.length === 0 && (
              <text x={PAD_X} y={axisH - 14} aria-hidden="true" className="fill-slate-500 text-xs dark:fill-slate-400">
                No events yet: run the scenario to draw its timeline.
              </text>
            )}
            {drawn.map((e) => {
              const lane = laneOf(e, actors)!;
              const targetLane = laneIndex(actors, e.target);
              return (
                <Mark
                  key={e.i}
                  event={e}
                  x={colX(e.i)}
                  y={laneY(lane)}
                  targetY={targetLane >= 0 && targetLane !== lane ? laneY(targetLane) : null}
                  colW={colW}
                  laneH={laneH}
                  selected={e.i === selected}
                  tabStop={e.i === tabStop}
                  markerId={id}
                  onSelect={onSelect}
                  register={register}
                />
              );
            })}
            {travel && travelLanes[0]! >= 0 && travelLanes[1]! >= 0 && travelLanes[0] !== travelLanes[1] && (
              <TravellingMessage
                key={selected}
                travel={travel}
                event={selected}
                x={colX(selected)}
                fromY={laneY(travelLanes[0]!)}
                toY={laneY(travelLanes[1]!)}
                fontPx={size === 'normal' ? 10 : type.labelPx - 2}
                charW={size === 'normal' ? 6.2 : (type.labelCharW * (type.labelPx - 2)) / type.labelPx}
              />
            )}
          </svg>
          {drawn.length === 0 && <p className="sr-only">No events yet.</p>}
        </div>
      </div>
      <QueueAndLeases run={run} selected={selected <= visibleUpTo ? selected : -1} travel={travel} size={size} />
      <Legend
        large={size !== 'normal'}
        kinds={new Set(trace.map(markKind))}
        downHatch={downSpans(trace, trace.length - 1).some((d) => actors.includes(d.actor)) ? `${id}-down` : null}
      />
    </div>
  );
}

/** The mark kinds this run uses (the whole run, so the legend stays put during playback). */
function Legend({ kinds, downHatch, large }: { kinds: Set<MarkKind>; downHatch: string | null; large: boolean }) {
  const items = MARK_LEGEND.filter((m) => kinds.has(m.kind));
  if (items.length === 0) return null;
  return (
    <div data-testid="timeline-legend" className="border-t border-slate-200 px-4 py-2.5 dark:border-slate-800">
      <h3 className="sr-only">Legend</h3>
      <ul className={`flex flex-wrap gap-x-4 gap-y-1.5 ${large ? 'text-sm' : 'text-xs'} text-slate-600 dark:text-slate-400`}>
        {items.map((m) => (
          <li key={m.kind} className="flex items-center gap-1.5">
            <svg width={18} height={18} viewBox="0 0 18 18" aria-hidden="true" className="shrink-0">
              <MarkShape kind={m.kind} x={9} y={9} />
            </svg>
            {m.label}
          </li>
        ))}
        {downHatch && (
          <li className="flex items-center gap-1.5">
            <svg width={18} height={18} viewBox="0 0 18 18" aria-hidden="true" className="shrink-0">
              {/* The timeline's own hatch pattern: one definition for the lanes and the legend. */}
              <rect x={1} y={4} width={16} height={10} fill={`url(#${downHatch})`} strokeDasharray="3 3" className={DOWN_STROKE} />
            </svg>
            Process down (crashed, not yet restarted)
          </li>
        )}
      </ul>
    </div>
  );
}

/**
 * One event's mark, its arrow and its hit area. Memoised: moving the selection re-renders the two
 * marks whose state changed, not all of them (a run stopped at the step limit draws 5,000).
 */
const Mark = memo(function Mark({
  event: e,
  x,
  y,
  targetY,
  colW,
  laneH,
  selected: isSelected,
  tabStop,
  markerId: id,
  onSelect,
  register,
}: {
  event: TraceEvent;
  x: number;
  y: number;
  /** The lane the arrow points to, when the event reaches another shown actor. */
  targetY: number | null;
  colW: number;
  laneH: number;
  selected: boolean;
  tabStop: boolean;
  /** The timeline's id, whose arrowhead markers the arrow uses. */
  markerId: string;
  onSelect: (i: number) => void;
  register: (i: number, el: SVGGElement | null) => void;
}) {
  const kind = markKind(e);
  const hasArrow = targetY !== null;
  const ty = targetY ?? y;
  const dir = ty > y ? 1 : -1;
  // A lost response is drawn from the provider back to the caller, where it never arrives.
  const lost = kind === 'lost';
  const label = `Event ${e.i + 1}, ${formatSimTime(e.t)}: ${e.text}`;
  return (
    <g
      ref={(el) => register(e.i, el)}
      role="button"
      tabIndex={tabStop ? 0 : -1}
      aria-label={label}
      aria-current={isSelected ? 'step' : undefined}
      data-kind={kind}
      onClick={() => onSelect(e.i)}
      className="group cursor-pointer outline-none"
    >
      <title>{label}</title>
      <rect x={x - colW / 2} y={Math.min(y, hasArrow ? ty : y) - laneH / 2} width={colW} height={(hasArrow ? Math.abs(ty - y) : 0) + laneH} className="fill-transparent" />
      {hasArrow && !lost && (
        <line
          x1={x}
          y1={y + dir * 8}
          x2={x}
          y2={ty - dir * 4}
          strokeWidth={1.5}
          markerEnd={`url(#${id}-arrow-${kind})`}
          className={`${TONE[kind].stroke} ${kind === 'reply' || kind === 'process' ? 'opacity-80' : ''}`}
        />
      )}
      {hasArrow && lost && (
        // The answer leaves the provider and never reaches the caller: a dashed line that stops short, crossed out.
        <g strokeWidth={2} strokeLinecap="round" className={TONE.lost.stroke}>
          <line x1={x} y1={ty - dir * 3} x2={x} y2={y + dir * 19} strokeDasharray="4 3" />
          <line x1={x - 3.5} y1={y + dir * 15 - 3.5} x2={x + 3.5} y2={y + dir * 15 + 3.5} />
          <line x1={x - 3.5} y1={y + dir * 15 + 3.5} x2={x + 3.5} y2={y + dir * 15 - 3.5} />
        </g>
      )}
      {isSelected && <circle cx={x} cy={y} r={12} strokeWidth={2.5} className="fill-teal-500/15 stroke-teal-600 dark:fill-teal-400/20 dark:stroke-teal-300" />}
      <circle cx={x} cy={y} r={15} strokeWidth={2.5} className="fill-none stroke-teal-600 opacity-0 group-focus-visible:opacity-100 dark:stroke-teal-300" strokeDasharray="3 2" />
      <g className="transition-transform group-hover:opacity-80">
        <MarkShape kind={kind} x={x} y={y} />
      </g>
    </g>
  );
});
