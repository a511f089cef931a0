'use client';
/**
 * Presenter mode for a lecture hall: the lab's own controller (`labMachine`) and registered
 * actions, shown for a projector — one narrated sentence at a time in large type, the timeline
 * and the ledger in the middle, fault buttons to inject live, and keys a clicker sends
 * (PageDown/PageUp) as well as → ← Space R Home End. The first "next" starts the demonstration
 * paused at its first event, so the presenter walks through it one event per click.
 *
 * Why one file of ~540 lines: presenter mode's screen-sized layout, its keys and its phone remote;
 * the controller, the actions, the views, the pacing and the dialogs are their own modules.
 */
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type MouseEvent } from 'react';
import { useDatabase } from '@/components/db/PgliteProvider';
import { useExplorePreparation } from '@/components/db/useExplorePreparation';
import { backAction, EXPLORE_RUNS, faultActions, pauseAction, resetAction, runAction, skipAction, stepAction, type ActionContext, type LabAction } from '@/components/lab/actions/lab-actions';
import { SPEED_DELAY_MS, type Speed } from '@/components/lab/controller/lab-machine';
import { useLabController } from '@/components/lab/controller/use-lab-controller';
import type { LabScenario } from '@/components/lab/lab-scenario';
import { DbInspector } from '@/components/lab/view/DbInspector';
import { Ledger } from '@/components/lab/view/Ledger';
import { compressedEvents, outcomeIndex, revealDelayMs } from '@/components/lab/view/pacing';
import { Timeline } from '@/components/lab/view/Timeline';
import { describeFaultAt } from '@/simulations/engine/faults';
import { PresenterExplore } from './PresenterExplore';
import { PresenterFix } from './PresenterFix';
import { faultEventNumber } from '@/components/lab/view/snapshots';

type Variant = 'starter' | 'solution';

/** What a presenter key does; `null` for keys that are not ours. */
export type PresenterCommand = 'next' | 'previous' | 'toggle' | 'reset' | 'first' | 'last' | 'explore' | 'fix' | 'scroll-down' | 'scroll-up';

/** The presenter's keys: arrows, Space, R, Home/End, X (explore both), F (the fix), ↓/↑ (scroll the stage), and the PageDown/PageUp a clicker sends. */
export function presenterCommand(key: string): PresenterCommand | null {
  switch (key) {
    case 'ArrowRight':
    case 'PageDown':
      return 'next';
    case 'ArrowLeft':
    case 'PageUp':
      return 'previous';
    case ' ':
      return 'toggle';
    case 'r':
    case 'R':
      return 'reset';
    case 'Home':
      return 'first';
    case 'End':
      return 'last';
    case 'x':
    case 'X':
      return 'explore';
    case 'f':
    case 'F':
      return 'fix';
    case 'ArrowDown':
      return 'scroll-down';
    case 'ArrowUp':
      return 'scroll-up';
    default:
      return null;
  }
}

const btnBase =
  'inline-flex items-center justify-center rounded-xl px-5 py-3 text-xl font-bold short:py-1.5 focus-visible:outline-4 focus-visible:outline-offset-2 focus-visible:outline-amber-400 disabled:cursor-not-allowed disabled:opacity-40';
const btn = `${btnBase} short:px-4 short:text-lg max-sm:px-2 max-sm:py-2 max-sm:text-base`;
const plainBtn = `${btn} bg-white text-slate-950 ring-2 ring-slate-900 hover:bg-slate-100 dark:bg-slate-900 dark:text-white dark:ring-slate-200 dark:hover:bg-slate-800`;
const runBtn = `${btn} bg-teal-800 text-white hover:bg-teal-900 dark:bg-teal-400 dark:text-slate-950 dark:hover:bg-teal-300`;
// A size smaller on a short screen, so the four faults fit one row beside the controls at 1280×720.
const faultBtn = `${btnBase} short:px-3 short:text-base max-sm:shrink-0 max-sm:px-3 max-sm:py-1.5 max-sm:text-sm bg-white text-red-800 ring-2 ring-red-700 hover:bg-red-50 dark:bg-slate-950 dark:text-red-300 dark:ring-red-400 dark:hover:bg-red-950`;

export function PresenterDemo({ scenario }: { scenario: LabScenario }) {
  const db = useDatabase();
  const dbRef = useRef(db);
  dbRef.current = db;
  useExplorePreparation(db, scenario.id, [scenario.variants.starter.code, scenario.variants.solution.code]);
  const [variant, setVariant] = useState<Variant>('starter');
  const variantRef = useRef(variant);
  variantRef.current = variant;

  // The lab's own controller and worker wiring.
  const [state, send] = useLabController({ scenario, db: dbRef, variant: () => variantRef.current });
  // The middle of the screen (the timeline, the ledger, the tables): it scrolls, the rest stays put.
  const stage = useRef<HTMLDivElement>(null);
  const shortScreen = useMedia(SHORT_SCREEN);
  // "Explore both" (X) and "The fix" (F): dialogs over the demonstration, which keeps its place underneath.
  const [dialog, setDialog] = useState<'explore' | 'fix' | null>(null);
  const dialogRef = useRef(dialog);
  dialogRef.current = dialog;
  const { context } = state;

  useEffect(() => {
    send({ type: db.status === 'ready' ? 'DB_READY' : 'DB_DOWN' });
  }, [db.status, send]);

  // Playback at the chosen speed; idle stretches (a relay polling an empty outbox) hurry by.
  const playing = state.matches({ running: 'playing' });
  const compressed = useMemo(() => (context.run ? compressedEvents(context.run.result.trace) : []), [context.run]);
  useEffect(() => {
    if (!playing) return;
    const timer = setTimeout(() => send({ type: 'TICK' }), revealDelayMs(compressed, context.visibleUpTo + 1, SPEED_DELAY_MS[context.speed]));
    return () => clearTimeout(timer);
  }, [playing, context.visibleUpTo, context.speed, send, compressed]);

  const ctx: ActionContext = useMemo(() => ({ state, send, code: () => scenario.variants[variantRef.current].code, scenario }), [state, send, scenario]);
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;
  const faults = useMemo(() => faultActions(scenario), [scenario]);
  const seek = useCallback((i: number) => send({ type: 'SEEK', index: i }), [send]);

  // End before any run starts the demonstration and jumps to its outcome once it plays. ("Next"
  // and Home from Ready are the lab's Step: the run starts held at its first event.)
  const skipOnArrival = useRef(false);
  useEffect(() => {
    if (skipOnArrival.current && context.run && state.matches({ running: 'playing' })) {
      send({ type: 'SKIP' });
      send({ type: 'SEEK', index: outcomeOf(context.run.result) });
      skipOnArrival.current = false;
    }
  }, [context.run, state, send]);

  const command = useCallback(
    (c: PresenterCommand) => {
      const x = ctxRef.current;
      const tryAction = (a: LabAction) => (a.enabled(x) ? (a.perform(x), true) : false);
      const run = x.state.context.run;
      const startAtEnd = () => {
        if (run || !runAction.enabled(x)) return false;
        skipOnArrival.current = true;
        runAction.perform(x);
        return true;
      };
      switch (c) {
        case 'next':
          // From Ready this is the lab's Step: the run starts held at its first event, and the
          // presses that come while it is computed are saved up (a clicker pressed three times
          // lands on the third event, not the first).
          tryAction(stepAction);
          return;
        case 'previous':
          tryAction(backAction);
          return;
        case 'toggle':
          if (!tryAction(pauseAction)) tryAction(runAction);
          return;
        case 'reset':
          // Back to the demonstration as written: the run and every fault injected live go.
          tryAction(resetAction);
          x.send({ type: 'CLEAR_FAULTS' });
          return;
        case 'first':
          if (run && run.result.trace.length > 0) x.send({ type: 'SEEK', index: 0 });
          else if (!run && x.state.matches('ready')) tryAction(stepAction);
          return;
        case 'last':
          // The outcome: the last event that matters, not the idle polls after it (→ still walks on to them).
          if (startAtEnd()) return;
          tryAction(skipAction);
          if (run) x.send({ type: 'SEEK', index: outcomeOf(run.result) });
          return;
        case 'scroll-down':
        case 'scroll-up':
        {
          // The stage scrolls on its own; on a screen too short for that (cramped), the page does.
          const box = stage.current;
          const scroller = box && box.scrollHeight > box.clientHeight + 1 ? box : window;
          const page = box && scroller === box ? box.clientHeight : window.innerHeight;
          // At once, not smoothly: presses in quick succession add up (a smooth scroll restarts from where the last one got to).
          scroller.scrollBy({ top: (c === 'scroll-down' ? 1 : -1) * Math.max(60, page * 0.4) });
          return;
        }
        case 'explore':
          // The room looks at the dialog: the demonstration waits where it is.
          tryAction(pauseAction);
          setDialog('explore');
          return;
        case 'fix':
          tryAction(pauseAction);
          setDialog('fix');
          return;
      }
    },
    [],
  );

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      // The dialogs are modal: their own keys (Escape, Tab, Enter) only.
      if (dialogRef.current) return;
      const target = event.target as HTMLElement | null;
      // The speed menu keeps the focus after a choice; a clicker's PageDown/PageUp there would
      // change the speed instead of the slide. They are the presenter's keys wherever the focus is.
      if (target?.closest('select') && /^Page(Down|Up)$/.test(event.key)) (target as HTMLSelectElement).blur();
      else if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      // Enter and Space on a focused button press it; arrows inside the timeline move its own focus.
      if (event.key === ' ' && target?.closest('button, a')) return;
      if (target?.closest('[role="group"][aria-label^="Timeline"]') && /^(ArrowLeft|ArrowRight|Home|End)$/.test(event.key)) return;
      const c = presenterCommand(event.key);
      if (!c) return;
      event.preventDefault();
      command(c);
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [command]);

  /** A click with the mouse (or a clicker's pointer) leaves no focus behind for Space to press again. */
  const clicked = (e: MouseEvent<HTMLButtonElement>, perform: () => void) => {
    perform();
    if (e.detail > 0) e.currentTarget.blur();
  };

  const run = context.run;
  const trace = run?.result.trace ?? [];
  const selected = context.selected;
  const event = selected >= 0 ? trace[selected] : undefined;
  const previous = selected > 0 ? trace[selected - 1] : undefined;
  const result = run?.result ?? null;
  const loading = state.matches({ running: 'loading' });
  const verdictShown = !!result && context.revealed && result.verdict !== 'error';
  const broken = result?.invariants.filter((i) => !i.held) ?? [];
  const canNext = stepAction.enabled(ctx) || (!run && runAction.enabled(ctx));
  const plan = run ? run.result.faults : [...context.demoFaults, ...context.injected];
  // A fault injected while the demonstration is held stays held at that event: the presenter talks
  // about the moment before playing on.
  const holding: ActionContext = { ...ctx, send: (e) => ctx.send(e.type === 'INJECT' ? { ...e, hold: !state.matches({ running: 'playing' }) } : e) };

  const status =
    db.status === 'booting' ? 'Starting the in-browser database…' : db.status === 'error' ? 'The database failed to start.' : loading ? 'Running…' : run ? `Event ${selected + 1} of ${trace.length}` : 'Ready';

  return (
    // The screen's height, no more: the header, the narration and the controls keep their places and
    // the stage between them (timeline, ledger, tables) takes the rest, scrolling inside itself, so
    // nothing is ever drawn under the controls. Under 500 px tall (200% zoom) the page flows instead.
    <div data-chrome="presenter" className="flex h-[calc(100dvh-2rem)] flex-col gap-4 short:gap-2 cramped:h-auto cramped:min-h-[calc(100dvh-2rem)] max-sm:gap-2 text-slate-950 dark:text-white">
      {/* On a 1280×720 projector (short:) one row: title, code, status and exit, so every row below keeps its height. */}
      <header className="flex shrink-0 flex-wrap items-center gap-x-8 gap-y-3 short:gap-x-5 max-xl:gap-x-4 max-sm:gap-y-1">
        <h1 className="text-4xl font-extrabold tracking-tight short:text-3xl max-xl:text-2xl">{scenario.title}</h1>
        <div role="group" aria-label="Which code runs" className="inline-flex rounded-xl bg-slate-200 p-1 dark:bg-slate-800">
          {(['starter', 'solution'] as const).map((v) => (
            <button
              key={v}
              type="button"
              aria-pressed={variant === v}
              disabled={loading}
              onClick={(e) => clicked(e, () => {
                variantRef.current = v;
                setVariant(v);
                if (ctxRef.current.state.context.run) send({ type: 'RESET' });
              })}
              className={`rounded-lg px-4 py-2 text-xl font-bold short:py-1.5 short:text-lg max-xl:px-3 max-xl:text-base focus-visible:outline-4 focus-visible:outline-amber-400 ${
                variant === v ? 'bg-white text-slate-950 shadow dark:bg-slate-950 dark:text-white' : 'text-slate-700 dark:text-slate-300'
              }`}
            >
              {scenario.variants[v].label}
            </button>
          ))}
        </div>
        <p role="status" aria-live="polite" data-testid="presenter-status" data-explore-workers={db.exploreWorkers} className="ml-auto font-mono text-2xl font-semibold whitespace-nowrap short:text-xl max-xl:text-lg">
          {status}
        </p>
        <Link href={`/lab/${scenario.id}/`} className="rounded text-lg font-semibold whitespace-nowrap underline underline-offset-4 short:text-base max-xl:text-sm focus-visible:outline-4 focus-visible:outline-amber-400">
          Exit presenter mode
        </Link>
      </header>

      <section
        aria-label="Narration"
        aria-live="polite"
        data-testid="narration"
        className="shrink-0 rounded-2xl border-4 border-slate-950 bg-white px-8 py-5 short:px-6 short:py-2 max-sm:px-4 max-sm:py-2 dark:border-white dark:bg-slate-950"
      >
        {event ? (
          <>
            {/* Read aloud on each step: the fault tag and the new sentence. The event number is the
                status's to say, and the previous sentence was read on the step before. */}
            <p className="text-xl font-semibold text-slate-700 short:text-lg max-sm:text-base dark:text-slate-300">
              <span aria-hidden="true">
                <span className="font-mono">{event.actor}</span> · event {selected + 1} of {trace.length}
              </span>
              {event.fault && <span className="ml-3 rounded-md bg-red-700 px-2 py-0.5 text-white">⚡ fault: {event.fault}</span>}
            </p>
            {/* The step before, for context; on a short screen it gives way to the verdict, which says more. */}
            {previous && (
              <p aria-hidden="true" className={`mt-2 truncate text-2xl text-slate-600 short:hidden max-sm:hidden dark:text-slate-400 ${verdictShown ? 'hidden' : ''}`}>
                {previous.text}
              </p>
            )}
            {/* With the verdict beneath it on a short screen, a size smaller, so the timeline keeps its lanes above the controls. */}
            <p data-testid="narration-sentence" className={`mt-2 text-4xl leading-tight font-bold 2xl:text-5xl short:mt-1 max-sm:text-2xl ${verdictShown ? 'short:text-2xl' : 'short:text-3xl'}`}>
              <NoBreakNames text={event.text} />
            </p>
          </>
        ) : (
          <>
            <p className="text-xl font-semibold text-slate-700 dark:text-slate-300">
              The demonstration · {variant === 'starter' ? scenario.variants.starter.label : scenario.variants.solution.label} code, seed {context.seed}
            </p>
            <p data-testid="narration-sentence" className="mt-2 text-4xl leading-tight font-bold short:text-3xl max-sm:text-2xl">
              {scenario.demo.story}
            </p>
            <p className="mt-4 text-2xl text-slate-700 short:mt-2 short:text-xl max-sm:text-lg dark:text-slate-300">
              {loading ? 'Running the schedule…' : 'Press → (or the clicker) to walk through it one event at a time, Space to play it.'}
            </p>
          </>
        )}
        {verdictShown && (
          <p
            data-testid="presenter-verdict"
            className={`mt-4 rounded-xl px-5 py-3 text-3xl font-extrabold short:mt-2 short:py-1.5 short:text-xl max-sm:text-xl ${
              result.verdict === 'held' ? 'bg-emerald-800 text-white dark:bg-emerald-400 dark:text-slate-950' : 'bg-red-800 text-white dark:bg-red-400 dark:text-slate-950'
            }`}
          >
            {result.verdict === 'held' ? (
              '✓ Held: every invariant kept.'
            ) : broken.length === 1 ? (
              <>
                ✗ Violated: <NoBreakNames text={broken[0].detail} />
              </>
            ) : (
              <>
                ✗ Violated, {broken.length} invariants:
                <span className="mt-1 block space-y-1 text-2xl font-bold short:text-lg">
                  {broken.map((i) => (
                    <span key={i.id} className="block">
                      · <NoBreakNames text={i.detail} />
                    </span>
                  ))}
                </span>
              </>
            )}
          </p>
        )}
        {result?.verdict === 'error' && context.revealed && (
          <p className="mt-5 rounded-xl bg-red-800 px-5 py-3 text-2xl font-bold text-white">The code could not run: {result.error?.message}</p>
        )}
      </section>

      <div
        ref={stage}
        data-testid="presenter-stage"
        className="min-h-0 flex-1 overflow-y-auto overscroll-contain cramped:flex-none cramped:overflow-visible"
      >
        {!run && (
          <section aria-label="The situation" className="max-w-6xl space-y-4 px-2 text-3xl leading-snug text-slate-800 short:text-2xl max-sm:text-xl dark:text-slate-200">
            {scenario.brief.map((p, i) => (
              <p key={i}>{p}</p>
            ))}
          </section>
        )}

        {run && trace.length > 0 && (
          <section aria-labelledby="presenter-what-happened" className="space-y-4 short:space-y-3">
            {/* The ledger's and the tables' headings are h3s: this h2 puts them under the page's h1 in order. */}
            <h2 id="presenter-what-happened" className="sr-only">
              Timeline, ledger and tables
            </h2>
            {/* Across the whole width, in its own projector type: no zoom, so its text is the size it says. */}
            <div className="min-w-0" data-testid="presenter-timeline">
              <Timeline size={shortScreen ? 'medium' : 'large'} run={run} actors={scenario.actors} selected={selected} visibleUpTo={context.visibleUpTo} onSelect={seek} />
            </div>
            {/* The side effects and the rows, side by side where the screen is wide: a lesson about rows
                (an order saved but never announced, a relay that published twice) shows them. */}
            <div className={`grid grid-cols-1 items-start gap-5 ${scenario.tables.length > 0 ? 'lg:grid-cols-2' : ''}`}>
              <div className="min-w-0 [zoom:1.35] short:[zoom:1.1] max-sm:[zoom:1]">
                <Ledger run={run} selected={selected} actors={scenario.actors} />
              </div>
              {scenario.tables.length > 0 && (
                <div className="min-w-0 [zoom:1.35] short:[zoom:1.1] max-sm:[zoom:1]" data-testid="presenter-tables">
                  <DbInspector run={run} tables={scenario.tables} selected={selected} />
                </div>
              )}
            </div>
          </section>
        )}
      </div>

      {/* The bottom of the screen, below the stage (never over it). On a phone, a remote: one row of
          the four controls, the faults in a row that scrolls sideways, the plan in small type. */}
      <footer
        data-testid="presenter-controls"
        className="z-10 -mx-2 grid shrink-0 grid-cols-1 gap-4 border-t-4 border-slate-950 bg-white px-2 pt-4 pb-3 short:gap-2 short:pt-2 short:pb-2 max-sm:gap-2 max-sm:pt-2 max-sm:pb-1 lg:grid-cols-[auto_minmax(0,1fr)] dark:border-white dark:bg-black"
      >
        <div role="toolbar" aria-label="Presenter controls" className="flex flex-wrap items-center gap-3 max-sm:grid max-sm:grid-cols-4 max-sm:gap-2">
          <button type="button" data-action="back" disabled={!backAction.enabled(ctx)} onClick={(e) => clicked(e, () => command('previous'))} className={plainBtn}>
            ← Back
          </button>
          <button
            type="button"
            data-action={pauseAction.enabled(ctx) ? 'pause' : 'run'}
            disabled={!pauseAction.enabled(ctx) && !runAction.enabled(ctx)}
            onClick={(e) => clicked(e, () => command('toggle'))}
            className={runBtn}
          >
            {pauseAction.enabled(ctx) ? (
              'Pause'
            ) : state.matches('paused') ? (
              'Play'
            ) : (
              // On a short screen only "Play" shows (the name stays "Play from the start"): the wider
              // label wrapped the fault buttons onto a second row over the timeline.
              <span>
                Play<span className="short:sr-only max-sm:sr-only"> from the start</span>
              </span>
            )}
          </button>
          <button type="button" data-action="step" disabled={!canNext} onClick={(e) => clicked(e, () => command('next'))} className={plainBtn}>
            Next →
          </button>
          <button type="button" data-action="reset" disabled={!resetAction.enabled(ctx) && context.injected.length === 0} onClick={(e) => clicked(e, () => command('reset'))} className={plainBtn}>
            Reset
          </button>
        </div>
        <div className="flex min-w-0 flex-wrap items-center gap-3">
          <span className="text-lg font-bold tracking-wide uppercase short:sr-only max-sm:sr-only">Inject now:</span>
          {/* On a phone the faults wrap onto rows: a row that scrolls sideways widened a mobile page's layout viewport to the row's width. */}
          <div role="toolbar" aria-label="Faults" className="flex min-w-0 max-w-full flex-wrap gap-3 short:gap-2 max-sm:gap-2">
            {faults.map((a) => (
              <button key={a.name} type="button" data-action={a.name} disabled={!a.enabled(ctx)} onClick={(e) => clicked(e, () => a.perform(holding))} className={faultBtn}>
                {/* A button acts when pressed: on a short screen "now" is only read, not shown (the
                    name stays "Crash worker-1 now"), so more of the faults fit beside the controls.
                    One inline run of text: as separate flex items the space before "now" collapsed. */}
                <span>
                  ⚡ {a.label.replace(/ now$/, '')}
                  {a.label.endsWith(' now') && <span className="short:sr-only max-sm:sr-only"> now</span>}
                </span>
              </button>
            ))}
          </div>
        </div>
        <p data-testid="presenter-plan" className="text-lg short:text-base max-sm:text-sm lg:col-span-2">
          <span className="font-bold">Fault plan:</span>{' '}
          {plan.length === 0
            ? 'no faults'
            : plan.map((f, i) => {
                const at = run ? faultEventNumber(run.result, i) : null;
                return (
                  <span key={i}>
                    {i > 0 && '; '}
                    {describeFaultAt(f, at)}
                    {run && at === null && <em className="text-slate-600 dark:text-slate-400"> (never happened in this run)</em>}
                  </span>
                );
              })}
          <span className="ml-6 max-sm:ml-3 text-slate-700 short:hidden max-sm:hidden dark:text-slate-300">
            Keys: → / PageDown next · ← / PageUp back · Space play/pause · Home first · End the outcome · R reset · F the fix · X explore both · ↓/↑ scroll
          </span>
          <SpeedPicker speed={context.speed} onSpeed={(speed) => send({ type: 'SET_SPEED', speed })} />
          <button
            type="button"
            data-action="the-fix"
            onClick={(e) => clicked(e, () => command('fix'))}
            className="ml-6 max-sm:ml-3 font-semibold whitespace-nowrap underline decoration-2 underline-offset-4 hover:decoration-teal-600 focus-visible:outline-4 focus-visible:outline-offset-2 focus-visible:outline-amber-400"
          >
            The fix (F)
          </button>
          <button
            type="button"
            data-action="explore-both"
            disabled={db.status !== 'ready'}
            onClick={(e) => clicked(e, () => command('explore'))}
            className="ml-6 max-sm:ml-3 font-semibold whitespace-nowrap underline decoration-2 underline-offset-4 hover:decoration-teal-600 focus-visible:outline-4 focus-visible:outline-offset-2 focus-visible:outline-amber-400 disabled:opacity-40"
          >
            Explore both ×{EXPLORE_RUNS} (X)
          </button>
        </p>
      </footer>
      {dialog === 'explore' && <PresenterExplore scenario={scenario} onClose={() => setDialog(null)} />}
      {dialog === 'fix' && <PresenterFix scenario={scenario} onClose={() => setDialog(null)} />}
    </div>
  );
}

function SpeedPicker({ speed, onSpeed }: { speed: Speed; onSpeed(speed: Speed): void }) {
  const chosenByPointer = useRef(false);
  return (
    <label className="ml-6 max-sm:ml-3 inline-flex items-center gap-2 font-semibold">
      Play speed
      <select
        value={speed}
        onPointerDown={() => (chosenByPointer.current = true)}
        onKeyDown={(e) => {
          chosenByPointer.current = false;
          if (e.key === 'Escape') e.currentTarget.blur();
        }}
        onChange={(e) => {
          onSpeed(e.target.value as Speed);
          // Chosen with the mouse: give the keys back to the presenter, as the buttons do.
          if (chosenByPointer.current) e.target.blur();
        }}
        className="rounded-lg border-2 border-slate-950 bg-white px-2 py-1 text-lg text-slate-950 dark:border-white dark:bg-slate-950 dark:text-white"
      >
        <option value="1x">1×</option>
        <option value="4x">4×</option>
      </select>
    </label>
  );
}

/** The `short:` variant of globals.css (a projector 800 px tall or less), or a phone: the timeline's closer lanes. */
const SHORT_SCREEN = '(max-height: 800px), (max-width: 639px)';

/** Whether `query` matches now; false on the server and before hydration. */
function useMedia(query: string): boolean {
  return useSyncExternalStore(
    (changed) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', changed);
      return () => list.removeEventListener('change', changed);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** Where End stops: the last event that matters, or a broken invariant's event after it. */
function outcomeOf(result: { trace: Parameters<typeof outcomeIndex>[0]; invariants: { held: boolean; step?: number }[] }): number {
  return outcomeIndex(
    result.trace,
    result.invariants.filter((i) => !i.held).map((i) => i.step),
  );
}

/**
 * `text` with every process name (worker-2, relay-1, em_1…) kept on one line: in large type a
 * line break after "worker-" reads as two words on a projector. The text itself is unchanged.
 */
export function NoBreakNames({ text }: { text: string }) {
  const parts = text.split(/(\b[a-z]+[-_]\d+\b)/);
  return (
    <>
      {parts.map((part, k) =>
        k % 2 === 1 ? (
          <span key={k} className="whitespace-nowrap">
            {part}
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}
