'use client';
/**
 * The lab with the course around it: "predict, then run" above the controls, the lesson's progress
 * (visited, predicted, passed — "Your code" held on the demonstration plan —, explored — the same
 * code came through an exploration with no violation) recorded from each finished run and
 * exploration, and the scenario's "check yourself" questions below the lab.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { LabWorkbench, type ExploreFinished, type RunFinished } from '@/components/lab/LabWorkbench';
import { EXPLORE_RUNS } from '@/components/lab/actions/lab-actions';
import type { LabScenario } from '@/components/lab/lab-scenario';
import { predictionPromptFor, questionsFor } from '@/simulations/lessons/catalog';
import { codeHeld, exploredClean, isDemoRun, ranStarter } from './demo-run';
import { PredictPanel } from './PredictPanel';
import { codeChips, codeDigest, lessonDone, markExploredBroken, markExploredClean, markPassed, markSawOutcome, markVisited, predictedBlind, questionsProgress, revealPrediction, useProgress } from './progress';
import { QuizList } from './QuizList';
import { ReplaySort } from './ReplaySort';
import { StoredDataNotice } from './StoredDataNotice';

const LESSON_DONE = 'Lesson done: your code held on the demonstration and came through an exploration with no violation.';

/** Where the lesson bar's "Questions" link goes. */
const QUESTIONS_ID = 'lesson-questions';

/** Labs about transformations and keys, which link to the try-it panel. */
const TRY_IT_SCENARIOS = new Set(['replay-safety', 'batch-credits', 'random-key-on-retry', 'ambiguous-timeout-charge']);

/** `onYourCode`: told the code in "Your code" whenever it changes (a course platform saves it). */
export function LabCourse({ scenario, onYourCode }: { scenario: LabScenario; onYourCode?: (code: string) => void }) {
  const prediction = predictionPromptFor(scenario.id);
  const progress = useProgress();
  const mine = progress.scenarios[scenario.id];
  const predictedRef = useRef(mine?.predicted);
  predictedRef.current = mine?.predicted;
  const [announcement, setAnnouncement] = useState('');
  // A run off the demonstration plan while a prediction waits: say why nothing was revealed.
  const [offPlan, setOffPlan] = useState<string | null>(null);
  // A run of "Your code" off the lesson's seed and faults, which the chips below do not count.
  const [planNote, setPlanNote] = useState<string | null>(null);

  useEffect(() => markVisited(scenario.id), [scenario.id]);

  const onRunFinished = useCallback(
    (r: RunFinished) => {
      const onPlan = isDemoRun(r, scenario.demo);
      // A run of "Your code" off the lesson's plan counts for nothing: say so, and how to get back.
      setPlanNote(
        r.mode === 'yours' && !onPlan
          ? `That run of your code used ${r.seed === scenario.demo.seed ? 'another fault plan' : `seed ${r.seed}`}, not the lesson's own seed and faults, so it does not count for the lesson. Press “Back to the lesson's seed and faults” above, then Run.`
          : null,
      );
      if (!onPlan) {
        if (predictedRef.current && predictedRef.current.actual === undefined) {
          setOffPlan(`That run used ${r.seed === scenario.demo.seed ? 'a different fault plan' : `seed ${r.seed}`}; your prediction is about the demonstration (seed ${scenario.demo.seed} with its own faults). Set the seed back, clear injected faults, and run again.`);
        }
        return;
      }
      setOffPlan(null);
      // A finished lesson's announcement is news once: it is not left in the status region for later runs.
      setAnnouncement('');
      if (codeHeld(r) && markPassed(scenario.id, codeDigest(r.code))) setAnnouncement(LESSON_DONE);
      const predicted = predictedRef.current;
      if (prediction && predicted && predicted.actual === undefined && !ranStarter(r, scenario.variants.starter.code)) {
        setOffPlan(
          `That run used ${r.mode === 'solution' ? 'the solution' : 'your own code'}; your prediction is about the starter code. Switch to Starter and press Run to check it.`,
        );
        return;
      }
      if (prediction && predicted && predicted.actual === undefined && r.prediction) {
        const { outcome: actual, described: text } = r.prediction;
        revealPrediction(scenario.id, actual, text);
        const label = (id: string) => prediction.options.find((o) => o.id === id)?.label ?? id;
        setAnnouncement(`You predicted ${label(predicted.choice)}. The run: ${text}.`);
      }
      // From now on the learner knows how the demonstration ends: a later prediction is not blind.
      if (ranStarter(r, scenario.variants.starter.code)) markSawOutcome(scenario.id);
    },
    [scenario.id, scenario.demo, scenario.variants.starter.code, prediction],
  );

  const onExploreFinished = useCallback(
    (e: ExploreFinished) => {
      if (e.mode !== 'yours') return;
      const digest = codeDigest(e.code);
      setAnnouncement('');
      if (e.violations > 0) markExploredBroken(scenario.id, digest, e.violations, e.runs);
      else if (exploredClean(e) && markExploredClean(scenario.id, digest)) setAnnouncement(LESSON_DONE);
    },
    [scenario.id],
  );
  // The code in "Your code" now: the chips speak of this version.
  const [yourCode, setYourCodeState] = useState<string | null>(null);
  const setYourCode = useCallback(
    (code: string) => {
      setYourCodeState(code);
      onYourCode?.(code);
    },
    [onYourCode],
  );
  const current = useMemo(() => (yourCode === null ? null : codeDigest(yourCode)), [yourCode]);
  const chips = codeChips(mine, current, { runs: EXPLORE_RUNS });
  const done = lessonDone(mine);

  const questions = questionsFor(scenario.id);
  const asked = questions.length > 0 ? questionsProgress(progress, questions.map((q) => q.id)) : null;

  return (
    <div className="space-y-10">
      <StoredDataNotice />
      <LabWorkbench
        scenario={scenario}
        onRunFinished={onRunFinished}
        onExploreFinished={onExploreFinished}
        onYourCode={setYourCode}
        beforeControls={prediction ? <PredictPanel scenario={scenario.id} prediction={prediction} note={offPlan} /> : null}
        // Not yet predicted: once a run has shown the outcome, the question folds away with the situation.
        beforeControlsFolds={!mine?.predicted}
        questions={questions.length > 0 ? { href: `#${QUESTIONS_ID}`, count: questions.length } : undefined}
      />
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>

      <section
        aria-label="Your progress in this lesson"
        data-testid="lesson-progress"
        className="flex flex-wrap gap-2 text-xs font-medium"
      >
        <Chip on={!!mine?.visited}>Visited</Chip>
        {prediction && (
          <Chip on={predictedBlind(mine)}>
            {mine?.predicted && mine.predicted.actual === undefined
              ? 'Predicted: run the starter to check'
              : mine?.predicted?.afterSeeing
                ? 'Predicted after seeing the run'
                : 'Predicted'}
          </Chip>
        )}
        {done && (
          <Chip on testId="done-chip">
            Lesson done
          </Chip>
        )}
        <Chip on={chips.held.on} testId="passed-chip">
          {chips.held.text}
        </Chip>
        <Chip on={chips.explored.on} testId="explored-chip">
          {chips.explored.text}
        </Chip>
        {asked && <Chip on={asked.allRight}>{asked.text}</Chip>}
        {planNote && !done && (
          <p data-testid="plan-note" className="basis-full text-sm font-normal text-amber-900 dark:text-amber-200">
            {planNote}
          </p>
        )}
      </section>

      {/* The lab's single-key shortcuts (Space runs, R resets) belong to the lab, not to the exercises below it. */}
      <div className="space-y-10" data-lab-keys="off">
        {scenario.id === 'replay-safety' && <ReplaySort />}
        {TRY_IT_SCENARIOS.has(scenario.id) && (
          <p className="text-sm text-slate-700 dark:text-slate-300">
            <a
              href="/try/"
              className="font-semibold text-teal-800 underline decoration-teal-600/40 underline-offset-4 hover:decoration-teal-600 focus-visible:outline-2 focus-visible:outline-offset-2 dark:text-teal-300"
            >
              Try it: sign and hash in your browser
            </a>{' '}
            — the same message and secret give the same HMAC every time, which is why a transformation can be replayed.
          </p>
        )}
        {/* The lesson bar's "Questions" link lands here. */}
        <div id={QUESTIONS_ID} className="scroll-mt-4">
          <QuizList questions={questions} />
        </div>
      </div>
    </div>
  );
}

function Chip({ on, children, testId }: { on: boolean; children: ReactNode; testId?: string }) {
  return (
    <span
      data-testid={testId}
      data-done={on}
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-1 ring-1 ${
        on
          ? 'bg-emerald-50 text-emerald-900 ring-emerald-600/30 dark:bg-emerald-500/10 dark:text-emerald-100 dark:ring-emerald-400/30'
          : 'bg-white text-slate-600 ring-slate-300 dark:bg-slate-900 dark:text-slate-300 dark:ring-slate-700'
      }`}
    >
      <span aria-hidden="true">{on ? '✓' : '○'}</span>
      <span className="sr-only">{on ? 'Done: ' : 'Not yet: '}</span>
      {children}
    </span>
  );
}
