'use client';
/**
 * The lab: the learner's code, the controls, and the views of one run (timeline, tables, ledger,
 * verdict, event log) plus the explorer. The controller is `labMachine`; the worker calls it makes
 * are provided here from the tab's database handle; playback ticks come from a timer here.
 *
 * Why one file of ~470 lines: it wires the controller, the code panel and the views into the
 * workspace (view/Workspace.tsx places them); each of those is its own module.
 */
import dynamic from 'next/dynamic';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { DbStatus } from '@/components/db/DbStatus';
import { useDatabase } from '@/components/db/PgliteProvider';
import { useExplorePreparation } from '@/components/db/useExplorePreparation';
import type { EditorMarker } from '@/components/editor/CodeEditor';
import { actionsFor, faultActions, PLAYBACK_ACTIONS, type ActionContext } from './actions/lab-actions';
import { CodePanel, type CodeMode } from './CodePanel';
import { HintLadder } from './HintLadder';
import { SPEED_DELAY_MS } from './controller/lab-machine';
import { useLabController } from './controller/use-lab-controller';
import { spokenStatus, statusText } from './controller/status';
import type { LabScenario } from './lab-scenario';
import { FaultControls, LabControls } from './LabControls';
import { RunProblems, problemMarkers } from './RunProblems';
import { SavedCodeOffer } from './SavedCodeOffer';
import { whoseCode } from './whose-code';
import { SharePanel, useShareButton } from './SharePanel';
import { ShareNotice } from './ShareNotice';
import { currentLinkState, useSharedLink } from './use-share-link';
import { useFocusRescue } from './use-focus-rescue';
import { useLearnerCode } from './use-learner-code';
import { VerdictPanel } from './view/VerdictPanel';
import { Situation } from './view/Situation';
import { useLabShortcuts, useLabTestHook } from './lab-keys';
import { injectedCount, modeOf, type ExploreFinished, type RunFinished } from './lab-reports';

export { injectedCount, type ExploreFinished, type RunFinished };
import { compressedEvents, revealDelayMs } from './view/pacing';
import { bringIntoView, LessonBar, RunPane, RunPaneNav, Workspace } from './view/Workspace';

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

export interface LabWorkbenchProps {
  scenario: LabScenario;
  /** Called once per run, when its verdict is revealed (not for code that could not load). */
  onRunFinished?: (r: RunFinished) => void;
  /** Called once per exploration, when its result is shown. */
  onExploreFinished?: (e: ExploreFinished) => void;
  /** Called with the text of "Your code" as it loads and on every change (whichever tab is shown). */
  onYourCode?: (text: string) => void;
  /** Shown under the situation, before the controls in reading order (the course's "predict, then run"). */
  beforeControls?: ReactNode;
  /** `beforeControls` folds with the situation from 1280 px (a question not yet answered, once the run has shown the answer). */
  beforeControlsFolds?: boolean;
  /** The lesson's questions, below the lab: the lesson bar links to them. */
  questions?: { href: string; count: number };
  /** The lesson's hints: shown under the situation, one click from the code. */
  hints?: ReactNode;
  /**
   * Parts an embed may leave out: the situation (`brief`) and the database card (`db`), both shown
   * by default; `panes: false` folds the run's panes other than the timeline and the verdict
   * (faults, tables, log, explorer) behind their names.
   */
  show?: { brief?: boolean; db?: boolean; panes?: boolean };
  /** The workspace's height from 1280 px (a Tailwind class); see Workspace. */
  heightClass?: string;
}

export function LabWorkbench({ scenario, onRunFinished, onExploreFinished, onYourCode, beforeControls, beforeControlsFolds = false, questions, hints, show = {}, heightClass }: LabWorkbenchProps) {
  const paneIds = `lab-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
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
  useExplorePreparation(db, scenario.id, [starter, scenario.variants.solution.code]);
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

  // Playback: one TICK per event at the chosen speed, idle stretches (empty polls) faster.
  const playing = state.matches({ running: 'playing' });
  const compressed = useMemo(() => (context.run ? compressedEvents(context.run.result.trace) : []), [context.run]);
  useEffect(() => {
    if (!playing) return;
    const timer = setTimeout(() => send({ type: 'TICK' }), revealDelayMs(compressed, context.visibleUpTo + 1, SPEED_DELAY_MS[context.speed]));
    return () => clearTimeout(timer);
  }, [playing, context.visibleUpTo, context.speed, send, compressed]);

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
  useLabShortcuts(allActions, ctxRef);

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
  useLabTestHook({ allActions, ctxRef, code: () => textRef.current, setCode: (next) => {
    if (modeRef.current !== 'yours') chooseMode('yours');
    learner.replace(next);
  } });

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
      failures: result.failures,
    });
  }, [explorer, scenario.id, exploredCode]);

  const onSelect = useCallback((i: number) => send({ type: 'SEEK', index: i }), [send]);
  const loading = state.matches({ running: 'loading' });
  const status = statusText(state, db, context, loading);
  const spoken = spokenStatus(status, state, context);

  // From 1280 px the situation folds away once the first run is on screen (one click brings it
  // back): the code then has the column's height. Narrower, it stays above the code.
  const [briefOpen, setBriefOpen] = useState(true);
  // A part that folds with the situation and now asks something again (Predict again) opens it.
  const folds = useRef(beforeControlsFolds);
  useEffect(() => {
    if (beforeControlsFolds && !folds.current) setBriefOpen(true);
    folds.current = beforeControlsFolds;
  }, [beforeControlsFolds]);
  const hadRun = useRef(false);
  useEffect(() => {
    if (!run || hadRun.current) return;
    hadRun.current = true;
    setBriefOpen(false);
  }, [run]);

  // What a control changes comes into view inside the run column: a new run (Run, a replayed
  // counterexample, an injected fault) brings the timeline, an exploration its pane.
  const runColumn = useRef<HTMLDivElement>(null);
  const timelineBox = useRef<HTMLDivElement>(null);
  const explorerBox = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (run) bringIntoView(timelineBox.current);
  }, [run]);
  // On its start, and again on its end: the result is taller than the progress it replaces, and
  // its verdict and replay come into view too.
  const exploreStatus = explorer.status;
  const exploring = exploreStatus === 'running';
  useEffect(() => {
    if (exploreStatus !== 'idle') bringIntoView(explorerBox.current);
  }, [exploreStatus]);
  const showEvent = useCallback(
    (i: number) => {
      send({ type: 'SEEK', index: i });
      bringIntoView(timelineBox.current);
    },
    [send],
  );

  const showBrief = show.brief !== false;
  const folded = show.panes === false;
  const hasRun = !!run && run.result.trace.length > 0;
  const panes = [
    { id: `${paneIds}-faults`, label: 'Faults' },
    { id: `${paneIds}-tables`, label: 'Tables and side effects' },
    { id: `${paneIds}-log`, label: 'Event log' },
    { id: `${paneIds}-explore`, label: 'Explore' },
  ];

  return (
    <div ref={rootRef} className="space-y-4">
      <ShareNotice shared={shared} hasRun={!!context.run && context.run !== runWhenLinked} restoredRef={restoredRef} />
      <SavedCodeOffer learner={learner} />
      <Workspace
        heightClass={heightClass}
        runRef={runColumn}
        lesson={
          <>
            {(showBrief || questions || hints) && (
              <LessonBar open={briefOpen} onToggle={() => setBriefOpen((o) => !o)} regionId={`${paneIds}-situation`} questions={questions} />
            )}
            {(showBrief || show.db !== false) && (
              <div id={`${paneIds}-situation`} className={`space-y-3 ${briefOpen ? '' : 'xl:hidden'}`}>
                {showBrief && <Situation scenario={scenario} />}
                {show.db !== false && <DbStatus />}
              </div>
            )}
            {beforeControls && <div className={beforeControlsFolds && !briefOpen ? 'xl:hidden' : undefined}>{beforeControls}</div>}
            {hints}
          </>
        }
        controls={<LabControls ctx={ctx} playback={playback} status={status} spoken={spoken} />}
        code={
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
        }
        run={
          <>
            <RunProblems notice={context.notice} result={result} unhandled={context.unhandled} upTo={problemsUpTo} onDismiss={() => send({ type: 'DISMISS_NOTICE' })} />
            {hasRun && !folded && <RunPaneNav panes={panes} />}
            <div ref={timelineBox} className="scroll-mt-2">
              {hasRun ? (
                <Timeline run={run} actors={scenario.actors} selected={context.selected} visibleUpTo={context.visibleUpTo} onSelect={onSelect} />
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
            </div>
            <VerdictPanel
              result={result}
              revealed={context.revealed}
              running={loading || playing}
              onSelectStep={showEvent}
              injectedByHand={injectedCount(result, context.injected)}
              explored={context.explorer.status === 'done' ? context.explorer.result : null}
            />
            {/* Hints read the run and the exploration, so they sit beside them, not above the code. */}
            <HintLadder
              lesson={scenario}
              run={context.revealed ? result : null}
              explorer={context.explorer}
              onReplay={(cx) => ctx.send({ type: 'REPLAY', counterexample: cx, code: textRef.current })}
              onShowSolution={() => chooseMode('solution')}
            />
            <RunPane id={`${paneIds}-faults`} label="Faults" folded={folded}>
              <FaultControls ctx={ctx} faults={faults} lessonPlan={scenario.demo} />
            </RunPane>
            {hasRun && (
              <RunPane id={`${paneIds}-tables`} label="Tables and side effects" folded={folded}>
                <div className="grid grid-cols-1 items-start gap-4 lg:grid-cols-2 xl:grid-cols-1 2xl:grid-cols-2">
                  <DbInspector run={run} tables={scenario.tables} selected={context.selected} />
                  <Ledger run={run} selected={context.selected} actors={scenario.actors} />
                </div>
              </RunPane>
            )}
            {hasRun && (
              <RunPane id={`${paneIds}-log`} label="Event log" folded={folded}>
                <EventLog run={run} selected={context.selected} visibleUpTo={context.visibleUpTo} onSelect={onSelect} />
              </RunPane>
            )}
            <div ref={explorerBox} className="scroll-mt-2">
              <RunPane id={`${paneIds}-explore`} label="Explore" folded={folded && !exploring && explorer.status !== 'done'}>
                <ExplorerPanel
                  state={context.explorer}
                  onReplay={(counterexample) => ctx.send({ type: 'REPLAY', counterexample, code: textRef.current })}
                  onCancel={() => send({ type: 'CANCEL_EXPLORE' })}
                  titles={invariantTitles}
                  stale={exploredCode !== null && exploredCode !== text}
                />
              </RunPane>
            </div>
            <SharePanel ctx={ctx} outcome={shareButton.outcome} />
            <details className="rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900">
              <summary className="cursor-pointer px-4 py-3 text-sm font-semibold text-slate-800 dark:text-slate-100">
                Query the database yourself
              </summary>
              <div className="border-t border-slate-200 p-4 dark:border-slate-800">
                <QueryPanel />
              </div>
            </details>
          </>
        }
      />
    </div>
  );
}

function variantName(mode: CodeMode): string {
  return mode === 'yours' ? 'your code' : mode;
}

