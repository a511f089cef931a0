'use client';
/**
 * One "check yourself" question: a native radio group (arrow keys move, Space selects), a Check
 * button, feedback with the explanation in a live region, and a "See it happen" link that opens
 * the lab in the state that shows the answer. The last answer is saved in the learner's progress
 * (by choice id) and shown again on the next visit. The choices are lettered A, B, … in the order
 * the learner's quiz seed gives this question (quiz-seed.ts); until that seed is known (the server
 * render, hydration) they are laid out in the default seed's order but not shown, so no learner
 * sees them move.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { DEFAULT_QUIZ_SEED, choiceLetter, shuffledChoices } from '@/simulations/course/quiz-order';
import { useQuizSeed } from './quiz-seed';
import type { JSX } from 'react';
import type { Question } from '@/simulations/lessons/catalog';
import { recordQuiz, useProgress } from './progress';
import { seeItHref } from './see-it';
import { SCENARIO_CATALOG } from '@/simulations/lessons/catalog';

/** A lab's title: the link may lead away from the page the question is on (/check/ is no lab). */
function labTitle(id: string): string {
  return SCENARIO_CATALOG.find((s) => s.id === id)?.title ?? id;
}

export interface QuizAnswer {
  questionId: string;
  choiceId: string;
  correct: boolean;
}

export function QuizCard(props: { question: Question; onAnswered?: (r: QuizAnswer) => void }): JSX.Element {
  const { question, onAnswered } = props;
  const saved = useProgress().quizzes[question.id];
  const seed = useQuizSeed();
  const choices = useMemo(() => shuffledChoices(question.choices, question.id, seed ?? DEFAULT_QUIZ_SEED), [question, seed]);
  const [choice, setChoice] = useState<string | null>(null);
  // The choice that was checked, when the feedback is showing.
  const [checked, setChecked] = useState<string | null>(null);
  const restored = useRef(false);
  const feedbackRef = useRef<HTMLDivElement>(null);
  const uid = useId();
  // Inside an iframe (a quiz embedded in a course page) the lab opens in its own tab instead of
  // replacing the embed; known only after mount, so the server render and hydration agree.
  const [framed, setFramed] = useState(false);
  useEffect(() => {
    try {
      setFramed(window.self !== window.top);
    } catch {
      setFramed(true); // a cross-origin parent: reading window.top throws
    }
  }, []);
  const name = `quiz-${uid}`;

  // A saved answer comes back once, after hydration.
  useEffect(() => {
    if (restored.current || !saved) return;
    restored.current = true;
    if (question.choices.some((c) => c.id === saved.choice)) {
      setChoice(saved.choice);
      setChecked(saved.choice);
    }
  }, [saved, question.choices]);

  const correct = checked !== null && checked === question.correct;
  const answerAt = choices.findIndex((c) => c.id === question.correct);
  const answerText = answerAt < 0 ? '' : `${choiceLetter(answerAt)}. ${choices[answerAt]!.text}`;

  function check() {
    if (choice === null) return;
    restored.current = true;
    const isCorrect = choice === question.correct;
    setChecked(choice);
    recordQuiz(question.id, choice, isCorrect);
    onAnswered?.({ questionId: question.id, choiceId: choice, correct: isCorrect });
    // The Check button goes away: keep the keyboard where the answer is (Tab then reaches "See it
    // happen", then "Try again").
    requestAnimationFrame(() => feedbackRef.current?.focus());
  }

  function tryAgain() {
    setChecked(null);
    setChoice(null);
    // Back to the first option, so the keyboard path continues where the answers are.
    requestAnimationFrame(() => document.querySelector<HTMLInputElement>(`input[name="${CSS.escape(name)}"]`)?.focus());
  }

  let href: string | null = null;
  if (question.see) {
    try {
      href = seeItHref(question.see);
    } catch {
      href = null;
    }
  }

  return (
    <form
      data-testid="quiz-card"
      data-question={question.id}
      data-state={checked === null ? 'open' : correct ? 'correct' : 'wrong'}
      onSubmit={(event) => {
        event.preventDefault();
        check();
      }}
      className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <fieldset disabled={checked !== null}>
        <legend className="text-base leading-7 font-medium text-slate-900 dark:text-slate-100">{question.prompt}</legend>
        <div className={`mt-3 space-y-2 ${seed === null ? 'invisible' : ''}`} data-testid="quiz-choices" data-quiz-seed={seed ?? undefined}>
          {choices.map((c, position) => {
            const id = `${name}-${c.id}`;
            const isAnswer = checked !== null && c.id === question.correct;
            const isWrongPick = checked !== null && c.id === checked && !correct;
            return (
              <label
                key={c.id}
                htmlFor={id}
                data-choice={c.id}
                className={`flex cursor-pointer items-start gap-3 rounded-lg border px-3 py-2.5 text-sm leading-6 transition has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-teal-600 ${
                  isAnswer
                    ? 'border-emerald-400 bg-emerald-50 text-emerald-950 dark:border-emerald-500/60 dark:bg-emerald-500/10 dark:text-emerald-50'
                    : isWrongPick
                      ? 'border-red-300 bg-red-50 text-red-950 dark:border-red-500/50 dark:bg-red-500/10 dark:text-red-50'
                      : choice === c.id
                        ? 'border-teal-500 bg-teal-50 text-slate-900 dark:border-teal-400 dark:bg-teal-400/10 dark:text-slate-100'
                        : 'border-slate-200 text-slate-700 hover:border-slate-300 dark:border-slate-700 dark:text-slate-200 dark:hover:border-slate-600'
                } ${checked !== null ? 'cursor-default' : ''}`}
              >
                <input
                  id={id}
                  type="radio"
                  name={name}
                  value={c.id}
                  checked={choice === c.id}
                  onChange={() => setChoice(c.id)}
                  className="mt-1 size-4 shrink-0 accent-teal-700 focus-visible:outline-none dark:accent-teal-400"
                />
                <span className="min-w-0 flex-1">
                  <span className="mr-1.5 font-semibold tabular-nums" data-testid="choice-letter">
                    {choiceLetter(position)}.
                  </span>{' '}
                  {c.text}
                  {isAnswer && (
                    <span className="ml-2 text-xs font-semibold text-emerald-800 dark:text-emerald-300">
                      <span className="sr-only">: </span>✓ Correct answer
                    </span>
                  )}
                  {isWrongPick && (
                    <span className="ml-2 text-xs font-semibold text-red-800 dark:text-red-300">
                      <span className="sr-only">: </span>✗ Your answer
                    </span>
                  )}
                </span>
              </label>
            );
          })}
        </div>
      </fieldset>

      {checked === null && (
        <div className="mt-4 flex flex-wrap items-center gap-3">
          <button
            type="submit"
            disabled={choice === null}
            className="rounded-lg bg-teal-700 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-600 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400 dark:disabled:bg-slate-700 dark:disabled:text-slate-300"
          >
            Check
          </button>
          {choice === null && <span className="text-xs text-slate-500 dark:text-slate-400">Pick an answer, then check it.</span>}
        </div>
      )}

      <div role="status" aria-live="polite" data-testid="quiz-feedback">
        {checked !== null && (
          <div
            ref={feedbackRef}
            tabIndex={-1}
            data-testid="quiz-explanation"
            className={`mt-4 rounded-lg px-4 py-3 text-sm leading-6 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 ${
              correct
                ? 'bg-emerald-50 text-emerald-950 ring-1 ring-emerald-300/70 dark:bg-emerald-500/10 dark:text-emerald-50 dark:ring-emerald-400/40'
                : 'bg-amber-50 text-amber-950 ring-1 ring-amber-300/70 dark:bg-amber-400/10 dark:text-amber-50 dark:ring-amber-400/50'
            }`}
          >
            <p className="font-semibold">{correct ? 'Correct.' : `Not quite. The answer: ${answerText}`}</p>
            <p className="mt-1">{question.explanation}</p>
            {href && question.see && (
              <p className="mt-2">
                <a
                  href={href}
                  {...(framed ? { target: '_blank', rel: 'noopener' } : {})}
                  data-testid="see-it-link"
                  className="inline-flex items-center gap-1 rounded font-semibold text-teal-800 underline decoration-teal-600/40 underline-offset-4 hover:decoration-teal-600 focus-visible:outline-2 focus-visible:outline-offset-2 dark:text-teal-300"
                >
                  See it happen
                  <span className="sr-only">
                    : the {question.see.variant} of the lab “{labTitle(question.see.scenario)}” with seed {question.see.seed},{' '}
                    {question.see.expect === 'violated' ? 'where it breaks' : 'where it holds'}
                    {framed && ' (opens in a new tab)'}
                  </span>
                  <span aria-hidden="true">→</span>
                </a>
                <span className="ml-2 text-xs opacity-80">
                  in “{labTitle(question.see.scenario)}”: {question.see.variant === 'starter' ? 'Starter' : 'Solution'}, seed {question.see.seed}
                  {question.see.faults.length > 0 && `, ${question.see.faults.length} ${question.see.faults.length === 1 ? 'fault' : 'faults'}`}
                  {question.see.expect === 'violated' ? ' — breaks' : ' — holds'}
                </span>
              </p>
            )}
          </div>
        )}
      </div>

      {/* After the feedback, where Tab goes next from it (the feedback takes the focus on Check). */}
      {checked !== null && (
        <div className="mt-4 flex flex-wrap items-center gap-3">
          <button
            type="button"
            onClick={tryAgain}
            className="rounded-lg px-3 py-2 text-sm font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800"
          >
            {correct ? 'Answer again' : 'Try again'}
          </button>
          {!correct && <span className="text-xs text-slate-600 dark:text-slate-400">The score counts answers given before the answer was shown: another try is practice.</span>}
        </div>
      )}
    </form>
  );
}
