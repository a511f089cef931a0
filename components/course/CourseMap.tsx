'use client';
/**
 * The course map's lessons in lesson order, with the learner's progress from this browser: which
 * lessons are done ("Your code" held on the demonstration and came through exploration), predicted, and how many questions are
 * answered, plus one clear next step. Rendered on the server with no progress ("Start here" on the
 * first lesson); the saved progress appears once the page has hydrated.
 */
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import type { ScenarioEntry } from '@/simulations/lessons/catalog';
import { generalQuestions, questionsFor } from '@/simulations/lessons/catalog';
import { ProgressFile, smallBtn } from './ProgressFile';
import { StoredDataNotice } from './StoredDataNotice';
import { answeredOnOwn, codeDetail, hasProgress, lessonState, nextLesson, predictedBlind, questionsProgress, resetProgress, restoreProgress, useProgress, type LessonState, type Progress } from './progress';

const STATE_TEXT: Record<LessonState, string> = { done: 'Done', started: 'In progress', new: 'Not started' };

export function NextStep({ lessons }: { lessons: readonly ScenarioEntry[] }) {
  const progress = useProgress();
  const next = nextLesson(progress, lessons);
  const fresh = lessons.every((l) => lessonState(progress, l.id) === 'new');
  const generalLeft = generalQuestions().filter((q) => !progress.quizzes[q.id]?.correct).length;
  const done = lessons.filter((l) => lessonState(progress, l.id) === 'done').length;

  const [label, href, title] = next
    ? [fresh ? 'Start here' : 'Next step', `/lab/${next.id}/`, next.title]
    : generalLeft > 0
      ? ['Next step', '/check/', 'Check yourself: two questions on the whole course']
      : ['All done', '/try/', 'Try the signature and key panel'];

  return (
    <>
    <StoredDataNotice />
    <section aria-label="Your next step" data-testid="next-step" className="rounded-xl border border-teal-300 bg-teal-50 p-4 dark:border-teal-700 dark:bg-teal-950/40">
      <p className="text-xs font-semibold tracking-wide text-teal-800 uppercase dark:text-teal-300">{label}</p>
      <Link
        href={href}
        data-testid="next-step-link"
        className="mt-1 inline-flex items-center gap-2 rounded text-lg font-semibold text-slate-900 underline decoration-teal-600/40 underline-offset-4 hover:decoration-teal-600 focus-visible:outline-2 focus-visible:outline-offset-2 dark:text-white"
      >
        {title}
        <span aria-hidden="true">→</span>
      </Link>
      <p className="mt-1 text-sm text-teal-900 dark:text-teal-200" data-testid="progress-summary">
        {done} of {lessons.length} lessons done · progress is saved in this browser only
      </p>
      <ResetProgress />
      <ProgressFile />
    </section>
    </>
  );
}

/** "Reset my progress", asked twice and undoable: for a shared classroom machine, or a fresh start. */
function ResetProgress() {
  const progress = useProgress();
  const [step, setStep] = useState<'idle' | 'asking' | { undo: Progress }>('idle');
  const cancelRef = useRef<HTMLButtonElement>(null);
  const undoRef = useRef<HTMLButtonElement>(null);
  const askRef = useRef<HTMLButtonElement>(null);
  // The button pressed goes away with each step: keep the keyboard on the control that replaced it.
  const moved = useRef(false);
  useEffect(() => {
    if (step === 'asking') cancelRef.current?.focus();
    else if (typeof step === 'object') undoRef.current?.focus();
    else if (moved.current) askRef.current?.focus();
    moved.current = true;
  }, [step]);

  if (step === 'idle' && !hasProgress(progress)) return null;
  return (
    <div className="mt-3 flex flex-wrap items-center gap-2 text-sm text-teal-900 dark:text-teal-100" data-testid="reset-progress">
      {step === 'idle' && (
        <button ref={askRef} type="button" className={smallBtn} onClick={() => setStep('asking')}>
          Reset my progress…
        </button>
      )}
      {step === 'asking' && (
        <>
          <p role="status" className="basis-full">
            Forget which lessons you visited and finished, your predictions, your answers and your sorting? The code you wrote in each lab is kept.
          </p>
          <button
            type="button"
            className={`${smallBtn} bg-red-700 text-white ring-red-700 hover:bg-red-800 dark:bg-red-400 dark:text-slate-950 dark:hover:bg-red-300`}
            onClick={() => setStep({ undo: resetProgress() })}
          >
            Reset progress
          </button>
          <button ref={cancelRef} type="button" className={smallBtn} onClick={() => setStep('idle')}>
            Cancel
          </button>
        </>
      )}
      {typeof step === 'object' && (
        <>
          <p role="status">Your progress was reset.</p>
          <button
            ref={undoRef}
            type="button"
            className={smallBtn}
            onClick={() => {
              restoreProgress(step.undo);
              setStep('idle');
            }}
          >
            Undo
          </button>
        </>
      )}
    </div>
  );
}

export function LessonList({ lessons }: { lessons: readonly ScenarioEntry[] }) {
  const progress = useProgress();
  const next = nextLesson(progress, lessons);
  const fresh = lessons.every((l) => lessonState(progress, l.id) === 'new');

  return (
    <ol className="mt-4 space-y-3" data-testid="lesson-list">
      {lessons.map((scenario, index) => {
        const state = lessonState(progress, scenario.id);
        const isNext = next?.id === scenario.id;
        const questions = questionsFor(scenario.id);
        const asked = questionsProgress(progress, questions.map((q) => q.id));
        const predicted = predictedBlind(progress.scenarios[scenario.id]);
        return (
          <li key={scenario.id}>
            <Link
              href={`/lab/${scenario.id}/`}
              data-testid="lesson-link"
              data-state={state}
              className={`group flex gap-4 rounded-xl border bg-white p-5 shadow-sm transition hover:-translate-y-px hover:shadow-md focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:bg-slate-900 ${
                isNext
                  ? 'border-teal-300 ring-1 ring-teal-300/60 dark:border-teal-700 dark:ring-teal-700/50'
                  : 'border-slate-200 hover:border-slate-300 dark:border-slate-800 dark:hover:border-slate-700'
              }`}
            >
              <span
                aria-hidden="true"
                className={`grid size-9 shrink-0 place-items-center rounded-full font-mono text-sm font-semibold ${
                  state === 'done'
                    ? 'bg-emerald-600 text-white dark:bg-emerald-500 dark:text-slate-950'
                    : isNext
                      ? 'bg-teal-600 text-white dark:bg-teal-500 dark:text-slate-950'
                      : 'bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300'
                }`}
              >
                {state === 'done' ? '✓' : index + 1}
              </span>
              <span className="min-w-0 flex-1">
                <span className="flex flex-wrap items-center gap-2">
                  <span className="sr-only">Lesson {index + 1}: </span>
                  <span data-testid="lesson-title" className="font-semibold text-slate-900 dark:text-white">
                    {scenario.title}
                  </span>
                  <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-600 dark:bg-slate-800 dark:text-slate-300">
                    {scenario.concept}
                  </span>
                  {isNext && (
                    <span className="rounded-full bg-teal-700 px-2 py-0.5 text-xs font-semibold text-white dark:bg-teal-500 dark:text-slate-950">
                      {fresh ? 'Start here' : 'Next step'}
                    </span>
                  )}
                  {state !== 'new' && (
                    <span
                      data-testid="lesson-state"
                      className={`rounded-full px-2 py-0.5 text-xs font-semibold ${
                        state === 'done'
                          ? 'bg-emerald-100 text-emerald-900 dark:bg-emerald-500/15 dark:text-emerald-200'
                          : 'bg-amber-100 text-amber-900 dark:bg-amber-400/15 dark:text-amber-200'
                      }`}
                    >
                      {STATE_TEXT[state]}
                    </span>
                  )}
                </span>
                <span id={`lesson-${scenario.id}-summary`} className="mt-1.5 block text-sm leading-6 text-slate-600 dark:text-slate-400">
                  {scenario.summary}
                </span>
                {state !== 'new' && (
                  <span className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400" data-testid="lesson-detail">
                    {predicted && <span>✓ Predicted</span>}
                    {questions.length > 0 && (
                      <span>{asked.text}</span>
                    )}
                    <span>{codeDetail(state, progress.scenarios[scenario.id])}</span>
                  </span>
                )}
              </span>
              <span
                aria-hidden="true"
                className="self-center text-slate-400 transition group-hover:translate-x-0.5 group-hover:text-teal-600 dark:text-slate-500 dark:group-hover:text-teal-400"
              >
                →
              </span>
            </Link>
          </li>
        );
      })}
    </ol>
  );
}

/** The lesson's two general questions: answered so far, for the map's "Check yourself" card. */
export function CheckSummary() {
  const progress = useProgress();
  const questions = generalQuestions();
  const right = questions.filter((q) => answeredOnOwn(progress.quizzes[q.id])).length;
  return (
    <span data-testid="check-summary">
      {right} of {questions.length} answered correctly on your own
    </span>
  );
}
