'use client';
/**
 * A lesson as an Open edX "Custom JavaScript" (JSInput) problem. The page exposes, on its window
 * and over jschannel for a problem served from another origin, the three functions JSInput calls:
 * - `getGrade()`: a JSON string `{lesson, passed, completed, right, total, score}` (lesson-result.ts;
 *   `score` from 0 to 1) for the problem's Python check function;
 * - `getState()`: the lesson's state (progress, answers, code) as a string, which edX stores with
 *   the learner's submission;
 * - `setState(state)`: puts that state back when the learner returns.
 * edX, not this browser, owns the learner's state: the page starts the lesson empty and takes what
 * `setState` brings, so a shared computer never grades one learner with another's progress.
 */
import dynamic from 'next/dynamic';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useProgress } from '@/components/course/progress';
import type { LabScenario } from '@/components/lab/lab-scenario';
import { questionsFor } from '@/simulations/lessons/catalog';
import { serveJsChannel } from './jschannel-responder';
import { unitResult } from './lesson-result';
import { packSuspendData, SCORM2004_SUSPEND_LIMIT, unpackSuspendData } from './suspend-data';
import { applySnapshot, takeSnapshot } from './unit-state';

const LabCourse = dynamic(() => import('@/components/course/LabCourse').then((m) => m.LabCourse), {
  loading: () => <p role="status">Loading the lab…</p>,
});

declare global {
  interface Window {
    getGrade?: () => string;
    getState?: () => string;
    setState?: (state: unknown) => void;
  }
}

export function EdxLesson({ scenario }: { scenario: LabScenario }) {
  const unit = scenario.id;
  const questionIds = useMemo(() => questionsFor(unit).map((q) => q.id), [unit]);
  const progress = useProgress();
  const progressRef = useRef(progress);
  progressRef.current = progress;
  // Null until the lesson's state is reset; bumped when setState brings another, to remount the lab on it.
  const [generation, setGeneration] = useState<number | null>(null);

  useEffect(() => {
    applySnapshot(null, unit, questionIds, { lesson: true });
    const api = {
      getGrade: () => {
        const r = unitResult(progressRef.current, unit, questionIds);
        return JSON.stringify({ lesson: unit, passed: r.passed === true, completed: r.completed, right: r.right, total: r.total, score: r.scaled });
      },
      getState: () => packSuspendData(takeSnapshot(progressRef.current, unit, questionIds, { lesson: true }), SCORM2004_SUSPEND_LIMIT).text,
      setState: (state: unknown) => {
        const snapshot = typeof state === 'string' ? unpackSuspendData(state, unit) : null;
        if (!snapshot) return;
        applySnapshot(snapshot, unit, questionIds, { lesson: true });
        setGeneration((g) => (g ?? 0) + 1);
      },
    };
    Object.assign(window, api);
    const stop = serveJsChannel('JSInput', { getGrade: api.getGrade, getState: api.getState, setState: api.setState });
    setGeneration(0);
    return () => {
      stop();
      delete window.getGrade;
      delete window.getState;
      delete window.setState;
    };
  }, [unit, questionIds]);

  if (generation === null) return <p role="status">Loading the lab…</p>;
  return (
    <div data-testid="edx-lesson" data-generation={generation}>
      <LabCourse key={generation} scenario={scenario} />
    </div>
  );
}
