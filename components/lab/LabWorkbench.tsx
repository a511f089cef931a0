'use client';
/**
 * The lab: the learner's code, the controls, and the views of one run (timeline, tables, ledger,
 * verdict, event log) plus the explorer. The controller is `labMachine`; the worker calls it makes
 * are provided here from the tab's database handle; playback ticks come from a timer here.
 *
 * Why one file of ~470 lines: it is the lab's layout, wiring the controller, the code panel and
 * the views; each of those is its own module, and the layout itself is one screen's composition.
 */
import dynamic from 'next/dynamic';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { DbStatus } from '@/components/db/DbStatus';
import { useDatabase } from '@/components/db/PgliteProvider';
import type { EditorMarker } from '@/components/editor/CodeEditor';
import type { RunResult } from '@/simulations/run/run';
import type { Fault } from '@/simulations/engine/types';
import { actionForKey, actionsFor, faultActions, PLAYBACK_ACTIONS, type ActionContext } from './actions/lab-actions';
import { CodePanel, type CodeMode } from './CodePanel';
import { HintLadder } from './HintLadder';
import { SPEED_DELAY_MS } from './controller/lab-machine';
import { useLabController } from './controller/use-lab-controller';
import { spokenStatus, statusText } from './controller/status';
import type { LabScenario } from './lab-scenario';
import { LabControls } from './LabControls';
import { RunProblems, problemMarkers } from './RunProblems';
import { SavedCodeOffer } from './SavedCodeOffer';
import { whoseCode } from './whose-code';
import { SharePanel, useShareButton } from './SharePanel';
import { ShareNotice } from './ShareNotice';
import { currentLinkState, useSharedLink } from './use-share-link';
import { useFocusRescue } from './use-focus-rescue';
import { useLearnerCode } from './use-learner-code';
import { VerdictPanel } from './view/VerdictPanel';

// Views with nothing to show before the first run (and the collapsed query panel) are their own
// chunks: server-rendered as usual, fetched when hydration reaches them and hydrated on arrival,
// so they are not among the scripts the page runs before the controls work. Each has its own
// placeholder: without one, next/dynamic adds no Suspense boundary of its own, and the first Run
// (which mounts the timeline and the tables) suspended the nearest boundary there was — the whole
// lab's, which blanked the page and threw the learner back to its top. The workbench also fetches
// these chunks once the database is ready (`prefetchViews`), so by the first Run they are usually there.
const viewLoading = (what: string, height: string) =>
  function ViewLoading() {
    return (
      <div
        role="status"
        className={`grid place-items-center rounded-xl border border-dashed border-slate-300 text-sm text-slate-600 dark:border-slate-700 dark:text-slate-300 ${height}`}
      >
        Loading the {what}…
      </div>
    );
  };
const Timeline = dynamic(() => import('./view/Timeline').then((m) => m.Timeline), { loading: viewLoading('timeline', 'min-h-64') });
const DbInspector = dynamic(() => import('./view/DbInspector').then((m) => m.DbInspector), { loading: viewLoading('tables', 'min-h-48') });
const Ledger = dynamic(() => import('./view/Ledger').then((m) => m.Ledger), { loading: viewLoading('side effects', 'min-h-48') });
const EventLog = dynamic(() => import('./view/EventLog').then((m) => m.EventLog), { loading: viewLoading('event log', 'min-h-32') });
const ExplorerPanel = dynamic(() => import('./view/ExplorerPanel').then((m) => m.ExplorerPanel), { loading: viewLoading('explorer', 'min-h-24') });
const QueryPanel = dynamic(() => import('./QueryPanel').then((m) => m.QueryPanel), { loading: viewLoading('query panel', 'min-h-24') });

/** Fetch the views' chunks ahead of the first run (the same modules next/dynamic loads above). */
function prefetchViews(): void {
  void Promise.all([
    import('./view/Timeline'),
    import('./view/DbInspector'),
    import('./view/Ledger'),
    import('./view/EventLog'),
    import('./view/ExplorerPanel'),
    import('./QueryPanel'),
  ]).catch(() => {
    // A failed prefetch costs nothing: next/dynamic fetches (and reports) on first render.
  });
}

/** The hook tests use to act on the lab without typing into Monaco (it drops fast keystrokes). */
interface LabTestHook {
  /** Put `text` into "Your code" exactly as a paste would, saving it. */
  setCode(text: string): void;
  getCode(): string;
  /** Perform a registered action by name; false when it is disabled. */
  perform(name: string): boolean;
  actions(): string[];
}

declare global {
  interface Window {
    __eoLab?: LabTestHook;
  }
}

/** Whether a key press belongs to something else: the editor, a form field, a focused button. */
function keyBelongsElsewhere(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return true;
  const target = event.target as HTMLElement | null;
  if (!target || target === document.body) return false;
  // data-lab-keys="off" marks content that is not the lab (the exercises below it): R and Space there are just keys.
  if (target.closest('[data-testid="code-editor"], .monaco-editor, input, textarea, select, [contenteditable="true"], [data-lab-keys="off"]')) return true;
  // Space and Enter on a button press that button.
  if (event.key === ' ' && target.closest('button, a, summary, [role="button"]')) return true;
  return false;
}

/** A run whose verdict the learner has just been shown (playback reached the end). */
export interface RunFinished {
  scenario: string;
  mode: 'starter' | 'solution' | 'yours';
  /** The code that ran. */
  code: string;
  seed: number;
  faults: Fault[];
  verdict: 'held' | 'violated';
  invariants: { id: string; held: boolean; detail: string }[];
  ledger: unknown;
  /** Errors the code threw (or answers its caller could not act on) during the run. */
  codeErrors: number;
  /** The lesson's prediction as this run answers it. */
  prediction?: { outcome: string; described: string };
}

/** An exploration that has finished (run to the end, cancelled, or stopped by code that failed to load). */
export interface ExploreFinished {
  scenario: string;
  mode: 'starter' | 'solution' | 'yours';
  /** The code explored. */
  code: string;
  /** Schedules run, and asked for: fewer ran when it was cancelled or the code failed to load. */
  runs: number;
  requested: number;
  /** Schedules that broke an invariant. */
  violations: number;
  /** Schedules whose code failed to load (an exploration stops at the first). */
  errors: number;
}

export interface LabWorkbenchProps {
  scenario: LabScenario;
  /** Called once per run, when its verdict is revealed (not for code that could not load). */
  onRunFinished?: (r: RunFinished) => void;
  /** Called once per exploration, when its result is shown. */
  onExploreFinished?: (e: ExploreFinished) => void;
  /** Called with the text of "Your code" as it loads and on every change (whichever tab is shown). */
  onYourCode?: (text: string) => void;
  /** Shown just above the controls (the course's "predict, then run"). */
  beforeControls?: ReactNode;
}

export function LabWorkbench({ scenario, onRunFinished, onExploreFinished, onYourCode, beforeControls }: LabWorkbenchProps) {
  const db = useDatabase();
  const dbRef = useRef(db);
  dbRef.current = db;
  const rootRef = useRef<HTMLDivElement>(null);
  useFocusRescue(rootRef);
  // Once the database is up (Run is about to be offered), not during its boot.
  const dbReady = db.status === 'ready';
  useEffect(() => {
    if (dbReady) prefetchViews();
  }, [dbReady]);

  const starter = scenario.variants.starter.code;
  const learner = useLearnerCode(scenario.id, starter);
  const onYourCodeRef = useRef(onYourCode);
  onYourCodeRef.current = onYourCode;
  // At once when the saved code is read; then after a pause in typing, not on every keystroke
  // (the caller re-renders the whole lab).
  const yourCodeReported = useRef(false);
  useEffect(() => {
    if (!learner.loaded) return;
    if (!yourCodeReported.current) {
      yourCodeReported.current = true;
      onYourCodeRef.current?.(learner.text);
      return;
    }
    const timer = setTimeout(() => onYourCodeRef.current?.(learner.text), 200);
    return () => clearTimeout(timer);
  }, [learner.text, learner.loaded]);
  const [mode, setMode] = useState<CodeMode>('yours');
  const modeRef = useRef(mode);
  modeRef.current = mode;
  const [modeRevision, setModeRevision] = useState(0);
  const text = mode === 'yours' ? learner.text : scenario.variants[mode].code;
  const textRef = useRef(text);
  textRef.current = text;

  const [state, send] = useLabController({ scenario, db: dbRef, variant: () => variantName(modeRef.current) });
  const { context } = state;

  // The database comes and goes (a stuck run restarts it): tell the machine.
  useEffect(() => {
    if (db.status === 'ready') send({ type: 'DB_READY' });
    else send({ type: 'DB_DOWN' });
  }, [db.status, send]);

  // Playback: one TICK per event at the chosen speed.
  const playing = state.matches({ running: 'playing' });
  useEffect(() => {
    if (!playing) return;
    const timer = setTimeout(() => send({ type: 'TICK' }), SPEED_DELAY_MS[context.speed]);
    return () => clearTimeout(timer);
  }, [playing, context.visibleUpTo, context.speed, send]);

  // The code that produced the run on screen, so markers only sit on the code they belong to.
  const [ranCode, setRanCode] = useState<string | null>(null);
  // The code the explorer's results are about, so they can say so once the editor holds other code.
  const [exploredCode, setExploredCode] = useState<string | null>(null);
  const shareButton = useShareButton();
  const { share: shareLink, copy: copyLink } = shareButton;
  const ctx: ActionContext = useMemo(
    () => ({
      state,
      send: (event) => {
        if ('code' in event && typeof event.code === 'string') {
          setRanCode(event.code);
          if (event.type === 'EXPLORE') setExploredCode(event.code);
        }
        send(event);
      },
      code: () => textRef.current,
      scenario,
      share: () => shareLink(currentLinkState(scenario.id, modeRef.current, textRef.current, state.context)),
      copy: copyLink,
    }),
    [state, send, scenario, shareLink, copyLink],
  );
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;

  const playback = PLAYBACK_ACTIONS;
  const faults = useMemo(() => faultActions(scenario), [scenario]);
  const allActions = useMemo(() => actionsFor(scenario), [scenario]);

  // Keyboard shortcuts, outside the editor.
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (keyBelongsElsewhere(event)) return;
      const action = actionForKey(allActions, event.key, ctxRef.current);
      if (!action) return;
      event.preventDefault();
      action.perform(ctxRef.current);
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [allActions]);

  const onEdit = useCallback(
    (next: string) => {
      if (modeRef.current === 'yours') learner.edit(next);
    },
    [learner],
  );

  const chooseMode = useCallback((next: CodeMode) => {
    if (next === modeRef.current) return;
    modeRef.current = next;
    setMode(next);
    setModeRevision((r) => r + 1);
  }, []);

  // A share link in the address bar: seed, plan and tab at once; shared code only when asked.
  const shared = useSharedLink(scenario.id, learner, chooseMode, send);
  const { pendingStep, stepApplied } = shared;
  const runAtLink = useRef<unknown>(undefined);
  // The run on screen when a link was opened: until another run, the notice says what the link set
  // up. A link followed inside the lab ("See it happen" under a question) arrives with a run on
  // screen, ~3,000 px below the notice: the notice then takes the focus, so the learner sees (and
  // hears) that the Starter and the seed are ready to run, so the link does not seem to do nothing.
  const [runWhenLinked, setRunWhenLinked] = useState<unknown>(null);
  const restoredRef = useRef<HTMLParagraphElement>(null);
  const runRef = useRef(context.run);
  runRef.current = context.run;
  // The notice to focus once it is on screen: it renders after the link's state has settled, which
  // may be a render or two after the link arrived.
  const focusNotice = useRef(false);
  useEffect(() => {
    runAtLink.current = undefined;
    setRunWhenLinked(runRef.current);
    focusNotice.current = !!(shared.link && runRef.current);
  }, [shared.link]);
  useEffect(() => {
    if (!focusNotice.current || !restoredRef.current) return;
    focusNotice.current = false;
    restoredRef.current.focus();
  });
  // The first new run after the link stops at the shared event.
  useEffect(() => {
    const current = context.run;
    if (pendingStep === null) return;
    if (runAtLink.current === undefined) runAtLink.current = current;
    if (!current || current === runAtLink.current || current.result.trace.length === 0) return;
    send({ type: 'SEEK', index: Math.min(pendingStep, current.result.trace.length - 1) });
    stepApplied();
  }, [context.run, pendingStep, stepApplied, send]);

  // Test hook: the same path as a paste into "Your code".
  useEffect(() => {
    window.__eoLab = {
      setCode(next) {
        if (modeRef.current !== 'yours') chooseMode('yours');
        learner.replace(next);
      },
      getCode: () => textRef.current,
      perform(name) {
        const action = allActions.find((a) => a.name === name);
        if (!action || !action.enabled(ctxRef.current)) return false;
        action.perform(ctxRef.current);
        return true;
      },
      actions: () => allActions.map((a) => a.name),
    };
    return () => {
      delete window.__eoLab;
    };
  }, [learner, chooseMode, allActions]);

  const run = context.run;
  const result = run?.result ?? null;
  // While a run plays back, errors are shown as the playhead reaches them; all of them once it ends.
  const problemsUpTo = context.revealed ? null : context.visibleUpTo;
  const invariantTitles = useMemo(() => Object.fromEntries(scenario.invariants.map((i) => [i.id, i.title])), [scenario]);
  const markers: EditorMarker[] = useMemo(
    () => (result && ranCode === text ? problemMarkers(result, context.unhandled, problemsUpTo) : []),
    [result, ranCode, text, context.unhandled, problemsUpTo],
  );

  // Report each run once, when its verdict lands on screen.
  const onRunFinishedRef = useRef(onRunFinished);
  onRunFinishedRef.current = onRunFinished;
  const reported = useRef<unknown>(null);
  useEffect(() => {
    if (!result || !context.revealed || reported.current === result) return;
    reported.current = result;
    if (result.verdict === 'error') return;
    onRunFinishedRef.current?.({
      scenario: scenario.id,
      mode: modeOf(result.variant),
      code: ranCode ?? '',
      seed: result.seed,
      faults: result.faults,
      verdict: result.verdict,
      invariants: result.invariants.map(({ id, held, detail }) => ({ id, held, detail })),
      ledger: result.ledger,
      codeErrors: result.codeErrors.length,
      prediction: result.prediction,
    });
  }, [result, context.revealed, scenario.id, ranCode]);

  // Report each exploration once, when its result lands.
  const onExploreFinishedRef = useRef(onExploreFinished);
  onExploreFinishedRef.current = onExploreFinished;
  const explorer = context.explorer;
  const reportedExplore = useRef<unknown>(null);
  useEffect(() => {
    if (explorer.status !== 'done' || reportedExplore.current === explorer.result) return;
    reportedExplore.current = explorer.result;
    const { result } = explorer;
    onExploreFinishedRef.current?.({
      scenario: scenario.id,
      mode: modeOf(result.variant),
      code: exploredCode ?? '',
      runs: result.runs,
      requested: explorer.requested ?? result.runs,
      violations: result.violations,
      errors: result.errors,
    });
  }, [explorer, scenario.id, exploredCode]);

  const onSelect = useCallback((i: number) => send({ type: 'SEEK', index: i }), [send]);
  const loading = state.matches({ running: 'loading' });
  const status = statusText(state, db, context, loading);
  const spoken = spokenStatus(status, state, context);

  return (
    <div ref={rootRef} className="space-y-6">
      <ShareNotice shared={shared} hasRun={!!context.run && context.run !== runWhenLinked} restoredRef={restoredRef} />
      <SavedCodeOffer learner={learner} />
      {/* From xl up the editor takes the whole width (long SQL lines fit); the situation and the
          database status sit side by side below it, in the same order as on a phone. */}
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,7fr)_minmax(0,5fr)] xl:grid-cols-1">
        <CodePanel
          scenario={scenario}
          mode={mode}
          onMode={chooseMode}
          text={text}
          revision={learner.revision + modeRevision}
          onEdit={onEdit}
          edited={learner.text !== starter}
          onResetToStarter={() => {
            const previous = learner.text;
            learner.replace(starter);
            return previous;
          }}
          onUndo={(previous) => learner.replace(previous)}
          markers={markers}
        />
        <div className="flex min-w-0 flex-col gap-6 xl:grid xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)] xl:items-start">
          <section
            aria-labelledby="brief-heading"
            className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900"
          >
            <h2 id="brief-heading" className="text-sm font-semibold text-slate-900 dark:text-slate-100">
              The situation
            </h2>
            <div data-testid="scenario-brief" className="mt-2 space-y-2 text-sm leading-6 text-slate-700 dark:text-slate-300">
              {scenario.brief.map((p, i) => (
                <p key={i}>{p}</p>
              ))}
            </div>
            <p className="mt-3 rounded-lg bg-amber-50 px-3 py-2 text-sm leading-6 text-amber-900 dark:bg-amber-400/10 dark:text-amber-200">
              <strong className="font-semibold">The demonstration (seed {scenario.demo.seed}):</strong> {scenario.demo.story}
            </p>
          </section>
          <HintLadder lesson={scenario} run={context.revealed ? result : null} explorer={context.explorer} onReplay={(cx) => ctx.send({ type: 'REPLAY', counterexample: cx, code: textRef.current })} onShowSolution={() => chooseMode('solution')} />
          <DbStatus />
        </div>
      </div>

      {beforeControls}
      <LabControls ctx={ctx} playback={playback} faults={faults} status={status} spoken={spoken} lessonPlan={scenario.demo} />
      <SharePanel ctx={ctx} outcome={shareButton.outcome} />
      <RunProblems notice={context.notice} result={result} unhandled={context.unhandled} upTo={problemsUpTo} onDismiss={() => send({ type: 'DISMISS_NOTICE' })} />

      {run && run.result.trace.length > 0 ? (
        <>
          <Timeline run={run} actors={scenario.actors} selected={context.selected} visibleUpTo={context.visibleUpTo} onSelect={onSelect} />
          <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-2">
            <DbInspector run={run} tables={scenario.tables} selected={context.selected} />
            <Ledger run={run} selected={context.selected} actors={scenario.actors} />
          </div>
        </>
      ) : (
        <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {loading
            ? db.waitingForQuery
              ? 'Waiting for your query to finish; the schedule runs right after it.'
              : 'Running the schedule in the worker…'
            : result?.verdict === 'error'
              ? `Nothing ran: ${whoseCode(result.variant).codeMidSentence} did not load. Fix the error above and press Run again.`
              : 'Press Run to play the demonstration schedule against your code.'}
        </p>
      )}
      <VerdictPanel
        result={result}
        revealed={context.revealed}
        running={loading || playing}
        onSelectStep={onSelect}
        injectedByHand={injectedCount(result, context.injected)}
      />
      {run && run.result.trace.length > 0 && (
        <EventLog run={run} selected={context.selected} visibleUpTo={context.visibleUpTo} onSelect={onSelect} />
      )}
      <ExplorerPanel
        state={context.explorer}
        onReplay={(counterexample) => ctx.send({ type: 'REPLAY', counterexample, code: textRef.current })}
        onCancel={() => send({ type: 'CANCEL_EXPLORE' })}
        titles={invariantTitles}
        stale={exploredCode !== null && exploredCode !== text}
      />

      <details className="rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <summary className="cursor-pointer px-4 py-3 text-sm font-semibold text-slate-800 dark:text-slate-100">
          Query the database yourself
        </summary>
        <div className="border-t border-slate-200 p-4 dark:border-slate-800">
          <QueryPanel />
        </div>
      </details>
    </div>
  );
}

/**
 * How many of a run's faults injected by hand took effect (the run comes back from the worker as a
 * copy: compared by value). One that never happened (a crash of a worker already gone, the "next"
 * response of a call never made) changed nothing, and is not counted.
 */
export function injectedCount(result: Pick<RunResult, 'faults' | 'faultEvents'> | null | undefined, injected: readonly Fault[]): number {
  if (!result || injected.length === 0) return 0;
  const byHand = new Set(injected.map((f) => JSON.stringify(f)));
  return result.faults.filter((f, i) => byHand.has(JSON.stringify(f)) && result.faultEvents[i] !== null).length;
}

/** The tab a result's variant label came from: "starter", "solution", or anything else for "Your code". */
function modeOf(variant: string): RunFinished['mode'] {
  return variant === 'starter' || variant === 'solution' ? variant : 'yours';
}

function variantName(mode: CodeMode): string {
  return mode === 'yours' ? 'your code' : mode;
}

