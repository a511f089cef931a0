'use client';
/**
 * "Predict, then run": before the first run of the demonstration the learner commits to an
 * outcome for the starter's code; the first demonstration run of the starter after that reveals
 * what really happened, computed from the run's ledger and invariants (simulations/predictions.ts),
 * next to the prediction. A run of other code leaves it waiting, with a note saying why.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { PredictionPrompt } from '@/simulations/lessons/catalog';
import { clearPrediction, recordPrediction, useProgress } from './progress';

export function PredictPanel({ scenario, prediction, note = null }: { scenario: string; prediction: PredictionPrompt; note?: string | null }) {
  const lesson = useProgress().scenarios[scenario];
  const saved = lesson?.predicted;
  const [choice, setChoice] = useState<string | null>(null);
  const name = `predict-${useId()}`;
  const label = (id: string | undefined) => prediction.options.find((o) => o.id === id)?.label ?? id;
  // The button pressed is replaced by the next state's panel: the keyboard's place goes there too
  // (to the prediction just locked in, or to the choices again), not to the page's <body>.
  const state = saved?.actual !== undefined ? 'revealed' : saved ? 'waiting' : 'asking';
  const moved = useRef(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const choices = useRef<HTMLFieldSetElement>(null);
  useEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    if (state === 'asking') choices.current?.querySelector<HTMLInputElement>('input[type="radio"]')?.focus();
    else heading.current?.focus();
  }, [state]);
  const act = (f: () => void) => () => {
    moved.current = true;
    f();
  };

  const frame = 'rounded-xl border px-4 py-3 text-sm leading-6 shadow-sm';

  // Waiting and revealed have the same rows, "The run" filled in at the reveal: the answer lands in
  // place instead of pushing the lab's controls down when the verdict does.
  const card = (state: 'waiting' | 'revealed', tone: string, title: ReactNode, choice: string, run: ReactNode, extra: ReactNode, again: string) => (
    <section aria-labelledby={`${name}-h`} data-testid="prediction" data-state={state} className={`${frame} ${tone}`}>
      <h2 id={`${name}-h`} ref={heading} tabIndex={-1} className="font-semibold focus:outline-none">
        {title}
      </h2>
      <p className="mt-1">{prediction.prompt}</p>
      <dl className="mt-2 grid gap-x-6 gap-y-1 sm:grid-cols-[auto_1fr]">
        <dt className="font-medium">You predicted</dt>
        <dd data-testid="prediction-choice">{label(choice)}</dd>
        <dt className="font-medium">The run</dt>
        {run}
      </dl>
      {extra}
      <button
        type="button"
        onClick={act(() => clearPrediction(scenario))}
        className="mt-2 rounded text-xs font-semibold underline underline-offset-4 focus-visible:outline-2 focus-visible:outline-offset-2"
      >
        {again}
      </button>
    </section>
  );

  if (saved?.actual !== undefined) {
    const right = saved.actual === saved.choice;
    return card(
      'revealed',
      right
        ? 'border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-500/40 dark:bg-emerald-500/10 dark:text-emerald-50'
        : 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-400/40 dark:bg-amber-400/10 dark:text-amber-50',
      right ? 'Your prediction was right' : 'The run did not match your prediction',
      saved.choice,
      <dd data-testid="prediction-actual">
        <strong>{label(saved.actual)}</strong>
        {saved.actualText && <span> — {saved.actualText}</span>}
      </dd>,
      saved.afterSeeing && (
        <p className="mt-1 text-xs" data-testid="prediction-after-seeing">
          Made after you had seen the starter&rsquo;s demonstration end, so it does not count towards the lesson.
        </p>
      ),
      'Predict again',
    );
  }

  if (saved) {
    return card(
      'waiting',
      'border-teal-200 bg-teal-50 text-teal-950 dark:border-teal-400/30 dark:bg-teal-400/10 dark:text-teal-50',
      'Prediction locked in',
      saved.choice,
      <dd>
        Not yet: run the starter code (<strong>Starter</strong>, or “Your code” unchanged) on the demonstration plan.
      </dd>,
      note && (
        <p role="status" data-testid="prediction-note" className="mt-1 font-medium">
          {note}
        </p>
      ),
      'Change my prediction',
    );
  }

  return (
    <section
      aria-labelledby={`${name}-h`}
      data-testid="prediction"
      data-state="asking"
      className={`${frame} border-slate-200 bg-white text-slate-800 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-200`}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (choice !== null) act(() => recordPrediction(scenario, choice))();
        }}
      >
        <fieldset ref={choices}>
          <legend id={`${name}-h`} className="font-semibold text-slate-900 dark:text-slate-100">
            Predict, then run: {prediction.prompt}
          </legend>
          {lesson?.sawOutcome && (
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-300" data-testid="prediction-after-seeing">
              You have already watched the starter&rsquo;s demonstration end, so this prediction will be marked as made after seeing it.
            </p>
          )}
          <div className="mt-2 flex flex-wrap gap-2">
            {prediction.options.map((o) => (
              <label
                key={o.id}
                className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-1.5 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-teal-600 ${
                  choice === o.id
                    ? 'border-teal-500 bg-teal-50 dark:border-teal-400 dark:bg-teal-400/10'
                    : 'border-slate-200 hover:border-slate-300 dark:border-slate-700 dark:hover:border-slate-600'
                }`}
              >
                <input
                  type="radio"
                  name={name}
                  value={o.id}
                  checked={choice === o.id}
                  onChange={() => setChoice(o.id)}
                  className="size-4 accent-teal-700 focus-visible:outline-none dark:accent-teal-400"
                />
                {o.label}
              </label>
            ))}
            <button
              type="submit"
              disabled={choice === null}
              className="rounded-lg bg-teal-700 px-3 py-1.5 font-semibold text-white hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-600 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400 dark:disabled:bg-slate-700 dark:disabled:text-slate-300"
            >
              Lock in my prediction
            </button>
          </div>
        </fieldset>
      </form>
    </section>
  );
}
