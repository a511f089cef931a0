'use client';
/**
 * A lesson's hint ladder, one rung at a time and only on request: a first nudge (where to look in
 * the run), then a hint for the way the learner's own code broke — chosen from what the latest run
 * or exploration of "Your code" found (the invariant, and the fault plan it broke under) — with a
 * button that replays that very schedule through the lab's controller, and last the solution.
 * Every rung opened is recorded with the lesson's progress (`hints`), so the ladder comes back as
 * the learner left it. Runs of the Starter or the Solution never pick a hint: the ladder is about
 * the learner's code.
 */
import type { JSX } from 'react';
import { hintOpened, recordHint, useProgress } from '@/components/course/progress';
import { NUDGE_ID, SOLUTION_ID, targetedHint } from '@/simulations/course/hints';
import type { Fault } from '@/simulations/engine/types';
import { hintsFor } from '@/simulations/lessons/hints';
import type { Counterexample } from '@/simulations/run/run';
import type { ExplorerState } from './controller/explorer-state';

/** The variant name the lab gives runs and explorations of "Your code". */
const YOUR_CODE = 'your code';

export interface HintLadderProps {
  lesson: { id: string; invariants: { id: string; title: string }[] };
  /** The run on screen once its verdict is shown (null while it plays or before any run). */
  run: { variant: string; faults: Fault[]; invariants: { id: string; held: boolean }[] } | null;
  explorer: ExplorerState;
  /** Replay a counterexample (the explorer's own action). */
  onReplay: (cx: Counterexample) => void;
  /** Put the Solution in the editor. */
  onShowSolution: () => void;
}

/** What the ladder's targeted rung is about: an exploration's counterexample, else a run of "Your code". */
export function brokenSchedule(run: HintLadderProps['run'], explorer: ExplorerState): { invariant: string; faults: Fault[]; counterexample: Counterexample | null } | null {
  const cx = explorer.status === 'done' && explorer.result.variant === YOUR_CODE ? explorer.result.counterexample : null;
  if (cx) return { invariant: cx.invariant, faults: cx.faults, counterexample: cx };
  const broke = run?.variant === YOUR_CODE ? run.invariants.find((i) => !i.held) : undefined;
  return broke && run ? { invariant: broke.id, faults: run.faults, counterexample: null } : null;
}

const BUTTON =
  'rounded-md px-3 py-1.5 text-sm font-medium ring-1 ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:ring-slate-600 dark:hover:bg-slate-800';
const PRIMARY =
  'rounded-md bg-teal-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400';

export function HintLadder({ lesson, run, explorer, onReplay, onShowSolution }: HintLadderProps): JSX.Element | null {
  const progress = useProgress().scenarios[lesson.id];
  const hints = hintsFor(lesson.id);
  if (!hints) return null;
  const nudgeOpen = hintOpened(progress, NUDGE_ID);
  const broken = brokenSchedule(run, explorer);
  const hint = broken ? targetedHint(hints, broken) : null;
  const title = (id: string) => lesson.invariants.find((i) => i.id === id)?.title ?? id;

  return (
    <section aria-labelledby="hints-heading" data-testid="hint-ladder" className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <h2 id="hints-heading" className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        Hints
      </h2>
      {!nudgeOpen ? (
        <p className="mt-2 flex flex-wrap items-center gap-3 text-sm text-slate-600 dark:text-slate-300">
          <span>Stuck? Take one step at a time.</span>
          <button type="button" data-testid="hint-open-nudge" className={BUTTON} onClick={() => recordHint(lesson.id, NUDGE_ID)}>
            Show a first hint
          </button>
        </p>
      ) : (
        <ol className="mt-2 space-y-3 text-sm leading-6 text-slate-700 dark:text-slate-300">
          <li data-testid="hint-nudge">
            <span className="font-semibold text-slate-900 dark:text-slate-100">Where to look. </span>
            {hints.nudge}
          </li>
          <li data-testid="hint-targeted" data-invariant={broken?.invariant} data-hint={hint?.id}>
            {!broken || !hint ? (
              <span className="text-slate-600 dark:text-slate-400">
                Run or Explore your code: when it breaks an invariant, a hint for that break appears here.
              </span>
            ) : hintOpened(progress, hint.id) ? (
              <div className="space-y-2">
                <p>
                  <span className="font-semibold text-slate-900 dark:text-slate-100">
                    Your code broke “{title(broken.invariant)}”{broken.counterexample ? ' in the exploration' : ' in this run'}.{' '}
                  </span>
                  {hint.text}
                </p>
                {broken.counterexample && (
                  <button type="button" data-testid="hint-replay" className={PRIMARY} onClick={() => onReplay(broken.counterexample!)}>
                    Replay that schedule
                  </button>
                )}
              </div>
            ) : (
              <p className="flex flex-wrap items-center gap-3">
                <span>
                  Your code broke “{title(broken.invariant)}”{broken.counterexample ? ' in the exploration' : ' in this run'}.
                </span>
                <button type="button" data-testid="hint-open-targeted" className={BUTTON} onClick={() => recordHint(lesson.id, hint.id)}>
                  Show a hint for this
                </button>
              </p>
            )}
          </li>
          <li className="flex flex-wrap items-center gap-3">
            <span className="text-slate-600 dark:text-slate-400">Still stuck? The solution replaces nothing: your code stays under “Your code”.</span>
            <button
              type="button"
              data-testid="hint-solution"
              className={BUTTON}
              onClick={() => {
                recordHint(lesson.id, SOLUTION_ID);
                onShowSolution();
              }}
            >
              Show the solution
            </button>
          </li>
        </ol>
      )}
    </section>
  );
}
