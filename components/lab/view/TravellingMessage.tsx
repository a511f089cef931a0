'use client';
/**
 * The selected event's message, drawn on the timeline as a token that travels along its arrow from
 * the sender's lane to the receiver's when the event is reached (playing, stepping or scrubbing).
 * A lost request or answer stops part of the way, crossed out. Under `prefers-reduced-motion` the
 * token is drawn where it arrives, without motion. The token is decoration: the event's mark names
 * the event, and the queue strip below says in words what travels.
 */
import { useLayoutEffect, useRef } from 'react';
import type { Travel } from './travel';

/** How long the token takes from lane to lane: inside one event's 400 ms at 1×. */
export const TRAVEL_MS = 360;

export interface TravellingMessageProps {
  travel: Travel;
  /** The event's column centre. */
  x: number;
  fromY: number;
  toY: number;
  /** The token's type size, px, and a character's width at it (monospace). */
  fontPx: number;
  charW: number;
  /** The trace index, for tests and so a new event restarts the motion. */
  event: number;
}

/** Where a token stops: short of the receiver's mark, or a little past halfway when it never arrives. */
export function tokenStop(fromY: number, toY: number, lost: boolean, tokenH: number): number {
  const dir = toY > fromY ? 1 : -1;
  if (lost) return fromY + (toY - fromY) * 0.55;
  // Its near edge just clear of the arrowhead, which ends 4 px short of the lane.
  return toY - dir * (tokenH / 2 + 6);
}

const TONE = {
  queue: 'fill-teal-700 stroke-teal-700 dark:fill-teal-300 dark:stroke-teal-300',
  call: 'fill-violet-700 stroke-violet-700 dark:fill-violet-300 dark:stroke-violet-300',
  reply: 'fill-slate-600 stroke-slate-600 dark:fill-slate-300 dark:stroke-slate-300',
  lost: 'fill-white stroke-red-700 dark:fill-slate-950 dark:stroke-red-400',
};

export function TravellingMessage({ travel, x, fromY, toY, fontPx, charW, event }: TravellingMessageProps) {
  const ref = useRef<SVGGElement>(null);
  const tokenH = Math.round(fontPx * 1.7);
  const padX = Math.round(fontPx * 0.6);
  const label = travel.lost ? `${travel.label} ✕` : travel.label;
  const w = Math.ceil(label.length * charW + padX * 2);
  const stopY = tokenStop(fromY, toY, travel.lost, tokenH);
  const kind = travel.lost ? 'lost' : travel.label === 'answer' ? 'reply' : travel.from === 'queue' || travel.to === 'queue' ? 'queue' : 'call';
  const textTone = travel.lost ? 'fill-red-800 dark:fill-red-300' : 'fill-white dark:fill-slate-950';

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const still = typeof el.animate !== 'function' || window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;
    // Says whether it moved (tests read it): drawn in place under reduced motion.
    el.setAttribute('data-animated', String(!still));
    if (still) return;
    // From the sender's lane to where it stops; the end state is where it is drawn, so an
    // interrupted or skipped animation leaves it in the right place.
    const animation = el.animate([{ transform: `translateY(${fromY - stopY}px)` }, { transform: 'translateY(0px)' }], { duration: TRAVEL_MS, easing: 'ease-in-out' });
    return () => animation.cancel();
  }, [event, fromY, stopY]);

  return (
    <g
      ref={ref}
      aria-hidden="true"
      data-testid="travelling-message"
      data-event={event}
      data-from={travel.from}
      data-to={travel.to}
      data-label={travel.label}
      data-lost={travel.lost}
      className="pointer-events-none"
    >
      <title>{travel.description}</title>
      <rect
        x={x - w / 2}
        y={stopY - tokenH / 2}
        width={w}
        height={tokenH}
        rx={tokenH / 2}
        strokeWidth={travel.lost ? 2 : 1}
        strokeDasharray={travel.lost ? '4 3' : undefined}
        className={TONE[kind]}
      />
      <text x={x} y={stopY} dominantBaseline="central" textAnchor="middle" style={{ fontSize: fontPx }} className={`font-mono font-semibold ${textTone}`}>
        {label}
      </text>
    </g>
  );
}
