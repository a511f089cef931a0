'use client';
/**
 * The embed's one way out: `postMessage` to the page that frames it, in a documented, versioned
 * shape. Messages go only to one exact origin — the host's `?parentOrigin=` when it gives one,
 * otherwise the origin of `document.referrer` — and never to `'*'`: a page that framed the embed
 * without saying who it is, and without a referrer, gets nothing. The embed listens to no
 * inbound messages, so there is nothing for another window to drive.
 */
import { useCallback, useEffect, useState, type RefObject } from 'react';
import type { ExploreFinished, RunFinished } from '@/components/lab/LabWorkbench';
import type { Fault } from '@/simulations/engine/types';

export const EMBED_SOURCE = 'effectively-once';
export const EMBED_VERSION = 1;

interface Envelope {
  source: typeof EMBED_SOURCE;
  version: typeof EMBED_VERSION;
}

/** Every message an embed sends (version 1). */
export type EmbedMessage = Envelope &
  (
    | { type: 'ready'; scenario: string | null; view: 'lab' | 'quiz'; questionId?: string }
    | ({ type: 'run-finished' } & Omit<RunFinished, 'code'>)
    | { type: 'exercise-passed'; scenario: string; seed: number; faults: Fault[] }
    /** An exploration's result is shown: clean when runs === requested and violations === errors === failures === 0. */
    | ({ type: 'explore-finished' } & Omit<ExploreFinished, 'code'>)
    /** The same "Your code" held on the demonstration (exercise-passed) and came through a clean exploration, in either order. */
    | { type: 'exercise-done'; scenario: string; runs: number }
    | { type: 'quiz-answered'; scenario: string | null; questionId: string; choiceId: string; correct: boolean }
    /**
     * How tall the embed's content is, in CSS pixels: sent at first and on every change, to size the
     * iframe by — followed each time by Canvas's own `{ subject: 'lti.frameResize', height }` (ltiFrameResize).
     */
    | { type: 'resize'; height: number }
  );

/** A message without its envelope, as the embed components build them. */
export type EmbedPayload = EmbedMessage extends infer M ? (M extends Envelope ? Omit<M, keyof Envelope> : never) : never;

export interface ParentTarget {
  /** The exact origin messages go to; null: none are sent. */
  origin: string | null;
  via: 'parentOrigin' | 'referrer' | 'none';
  /** Why a given `parentOrigin` was refused. */
  problem: string | null;
}

function webOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** Where events go, from the embed URL's query string and `document.referrer`. */
export function resolveParentTarget(search: string, referrer: string): ParentTarget {
  const given = new URLSearchParams(search).get('parentOrigin');
  if (given !== null) {
    const origin = webOrigin(given);
    // Only a bare origin ("https://host:port"): a path or a wildcard would be a mistake worth saying.
    if (origin === null || origin !== given.replace(/\/$/, '')) {
      return { origin: null, via: 'none', problem: `parentOrigin must be an origin such as https://course.example.org (got ${JSON.stringify(given.slice(0, 80))}); no events are sent.` };
    }
    return { origin, via: 'parentOrigin', problem: null };
  }
  const fromReferrer = referrer ? webOrigin(referrer) : null;
  return fromReferrer ? { origin: fromReferrer, via: 'referrer', problem: null } : { origin: null, via: 'none', problem: null };
}

/** The channel to the framing page: `post` sends one message (or nothing, when there is no one to tell). */
export function useEmbedChannel(): { target: ParentTarget | null; post(message: EmbedPayload): boolean } {
  const [target, setTarget] = useState<ParentTarget | null>(null);
  useEffect(() => {
    const framed = window.parent !== window;
    setTarget(framed ? resolveParentTarget(window.location.search, document.referrer) : { origin: null, via: 'none', problem: null });
  }, []);
  const post = useCallback(
    (message: EmbedPayload) => {
      if (!target?.origin || window.parent === window) return false;
      const full = { source: EMBED_SOURCE, version: EMBED_VERSION, ...message } as EmbedMessage;
      window.parent.postMessage(full, target.origin);
      return true;
    },
    [target],
  );
  return { target, post };
}

/**
 * Canvas's message for sizing a frame (its LTI postMessage API: `subject: 'lti.frameResize'`),
 * sent beside our own `resize` so a Canvas page sizes the frame too. The same one origin gets it.
 */
export function ltiFrameResize(height: number): { subject: 'lti.frameResize'; height: number } {
  return { subject: 'lti.frameResize', height };
}

/** Space kept below the content (the page's own bottom padding), so the frame never cuts its last line. */
const BOTTOM_GAP_PX = 16;

/**
 * Tell the host how tall the embed's content is whenever that changes (a run's timeline appears,
 * a quiz's explanation opens), so it can give the iframe that height instead of a scrollbar. The
 * content element is measured, not the page: the page is at least as tall as the frame, so a page
 * height would only ever grow.
 */
export function useReportHeight(content: RefObject<HTMLElement | null>, target: ParentTarget | null, post: (message: EmbedPayload) => boolean): void {
  useEffect(() => {
    const el = content.current;
    if (!el || !target?.origin || typeof ResizeObserver === 'undefined') return;
    let last = -1;
    let frame = 0;
    const report = () => {
      frame = 0;
      const height = Math.ceil(el.getBoundingClientRect().bottom + window.scrollY + BOTTOM_GAP_PX);
      if (height === last) return;
      last = height;
      if (post({ type: 'resize', height }) && target.origin) window.parent.postMessage(ltiFrameResize(height), target.origin);
    };
    // Observing reports the first size at once; a burst of changes is reported once per frame.
    const observer = new ResizeObserver(() => {
      frame ||= requestAnimationFrame(report);
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [content, target, post]);
}
