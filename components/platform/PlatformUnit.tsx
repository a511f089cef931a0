'use client';
/**
 * A unit (a lesson's lab and questions, or the general questions) as a course platform launches
 * it: a SCO of a SCORM package (the package's pages carry `__EO_PLATFORM__`, see
 * scripts/package-site.ts), or a cmi5 AU (cmi5's launch parameters in the URL). It first takes the
 * learner's state from the platform into this browser — before the lab mounts and reads it — then
 * renders the unit and reports its result (lesson-result.ts) whenever the progress changes.
 * Opened any other way it reports nothing and says so.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useProgress } from '@/components/course/progress';
import { hasCmi5Launch, openCmi5Session, type Cmi5Session } from './cmi5-session';
import { unitResult } from './lesson-result';
import type { ScormVersion } from './scorm-api';
import { openScormSession, type ScormSession } from './scorm-session';
import { applySnapshot, takeSnapshot } from './unit-state';

declare global {
  interface Window {
    /** Set by the packaging step in every page of a course-platform package. */
    __EO_PLATFORM__?: { scorm?: ScormVersion };
  }
}

type Phase =
  | { kind: 'connecting' }
  | { kind: 'scorm'; session: ScormSession }
  | { kind: 'cmi5'; session: Cmi5Session }
  | { kind: 'standalone'; note: string };

export interface PlatformUnitProps {
  unit: string;
  questionIds: readonly string[];
  /** A lesson (lab, code, progress record) rather than the general questions. */
  lesson: boolean;
  /** Renders the unit; `onCode` is to be called with the learner's code whenever it changes. */
  children: (onCode: (code: string) => void) => ReactNode;
}

export function PlatformUnit({ unit, questionIds, lesson, children }: PlatformUnitProps) {
  const [phase, setPhase] = useState<Phase>({ kind: 'connecting' });
  const progress = useProgress();
  const phaseRef = useRef(phase);
  phaseRef.current = phase;
  const [dropped, setDropped] = useState<string[]>([]);

  useEffect(() => {
    let cancelled = false;
    const scorm = window.__EO_PLATFORM__?.scorm;
    if (scorm) {
      const session = openScormSession(window, scorm, unit, () => performance.now());
      if (typeof session === 'string') {
        setPhase({ kind: 'standalone', note: session });
        return;
      }
      applySnapshot(session.restored, unit, questionIds, { lesson });
      setPhase({ kind: 'scorm', session });
      const end = () => session.end();
      window.addEventListener('pagehide', end, { once: true });
      return () => window.removeEventListener('pagehide', end);
    }
    if (hasCmi5Launch(window.location.search)) {
      const end = () => phaseRef.current.kind === 'cmi5' && phaseRef.current.session.end();
      window.addEventListener('pagehide', end, { once: true });
      openCmi5Session().then(
        (session) => {
          if (cancelled) return;
          if (session.firstLaunch) applySnapshot(null, unit, questionIds, { lesson });
          setPhase({ kind: 'cmi5', session });
        },
        (error: unknown) => {
          if (!cancelled) setPhase({ kind: 'standalone', note: `The cmi5 launch failed (${error instanceof Error ? error.message : String(error)}): nothing is recorded on the platform.` });
        },
      );
      return () => {
        cancelled = true;
        window.removeEventListener('pagehide', end);
      };
    }
    setPhase({ kind: 'standalone', note: 'Not launched from a course platform: your progress stays in this browser and nothing is recorded elsewhere.' });
  }, [unit, questionIds, lesson]);

  // Report the result, and save the state to resume from, whenever the progress changes.
  useEffect(() => {
    if (phase.kind === 'connecting' || phase.kind === 'standalone') return;
    const result = unitResult(progress, unit, questionIds);
    if (phase.kind === 'scorm') {
      setDropped(phase.session.save(takeSnapshot(progress, unit, questionIds, { lesson }), false));
      phase.session.report(result);
    } else {
      void phase.session.report(result).catch(() => undefined);
    }
  }, [phase, progress, unit, questionIds, lesson]);

  const progressRef = useRef(progress);
  progressRef.current = progress;
  // The code changes with every keystroke: written at once, committed with the next report or when the page is hidden.
  const onCode = useCallback(
    (_code: string) => {
      const current = phaseRef.current;
      if (current.kind !== 'scorm') return;
      // The lab saves the code under its key as it reports it; the snapshot reads it from there.
      queueMicrotask(() => setDropped(current.session.save(takeSnapshot(progressRef.current, unit, questionIds, { lesson }), false)));
    },
    [unit, questionIds, lesson],
  );

  useEffect(() => {
    if (phase.kind !== 'scorm') return;
    const onHidden = () => {
      if (document.visibilityState === 'hidden') phase.session.save(takeSnapshot(progressRef.current, unit, questionIds, { lesson }), true);
    };
    document.addEventListener('visibilitychange', onHidden);
    return () => document.removeEventListener('visibilitychange', onHidden);
  }, [phase, unit, questionIds, lesson]);

  if (phase.kind === 'connecting') {
    return (
      <p role="status" data-testid="platform-status" data-platform="connecting" className="text-sm text-slate-600 dark:text-slate-300">
        Connecting to the course platform…
      </p>
    );
  }
  const label =
    phase.kind === 'scorm'
      ? `Recording to the course platform (SCORM ${phase.session.version}).`
      : phase.kind === 'cmi5'
        ? 'Recording to the course platform (cmi5).'
        : phase.note;
  return (
    <div className="space-y-6">
      <p data-testid="platform-status" data-platform={phase.kind} className="text-xs text-slate-600 dark:text-slate-400">
        {label}
        {dropped.includes('code') && ' Your code is too long for the platform to keep: it stays in this browser only.'}
      </p>
      {children(onCode)}
    </div>
  );
}
