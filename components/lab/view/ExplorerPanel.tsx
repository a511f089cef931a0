/**
 * The explorer: many seeded schedules with faults drawn from the scenario's menu, a progress bar
 * while they run, then how many broke which invariant, the distribution of outcomes, and the
 * smallest counterexample the shrinker found, ready to replay step by step.
 */
import type { ExploreResult } from '@/simulations/run/run';
import { failureText } from '@/simulations/run/failure';
import type { ExplorerState } from '../controller/explorer-state';
import type { Replayable } from '../controller/lab-machine';
import { describeFault } from '@/simulations/engine/faults';

/** Where an exploration stands. */
export type { ExplorerState };

export interface ExplorerPanelProps {
  state: ExplorerState;
  /** Replay the counterexample in the timeline. */
  onReplay: (cx: Replayable) => void;
  /** Stop a running exploration. */
  onCancel: () => void;
  /** The scenario's invariants' titles by id, to name them as the verdict does (ids otherwise). */
  titles?: Readonly<Record<string, string>>;
  /** The results are about code the editor no longer holds (it was edited, or another variant is shown). */
  stale?: boolean;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const BUTTON =
  'rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600';

/** An outcome key of the histogram ("held", or "violated: id, id") in the invariants' own words. */
export function outcomeName(key: string, titles: Readonly<Record<string, string>> = {}): string {
  if (!key.startsWith('violated: ')) return key === 'held' ? 'Held' : key;
  const ids = key.slice('violated: '.length).split(', ');
  return `Broke: ${ids.map((id) => titles[id] ?? id).join('; ')}`;
}

/**
 * What a screen reader hears when an exploration ends: the result replaces the progress bar in a
 * region that is not live, and the lab's status only went from "Exploring…" to "Ready".
 */
export function exploredAnnouncement(state: ExplorerState): string {
  if (state.status !== 'done') return '';
  const { result } = state;
  const requested = state.requested ?? result.runs;
  if (result.runs < requested && result.errors === 0) {
    if (result.runs === 0) return 'Exploration cancelled before any schedule ran.';
    return `Exploration cancelled: of the ${result.runs} schedules that ran (of ${requested}), ${result.violations} violated an invariant.`;
  }
  const threw = result.failures > 0 ? `, and your code failed in ${result.failures}` : '';
  const found = `Exploration finished: of ${plural(result.runs, 'schedule')}, ${result.violations} violated an invariant${threw}`;
  return result.counterexample ? `${found}. The smallest counterexample is below, ready to replay.` : `${found}.`;
}

export function ExplorerPanel({ state, onReplay, onCancel, titles = {}, stale = false }: ExplorerPanelProps) {
  return (
    <section aria-label="Explorer" className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <p role="status" className="sr-only" data-testid="explorer-announcement">
        {stale ? '' : exploredAnnouncement(state)}
      </p>
      {state.status === 'idle' && (
        <p className="text-sm text-slate-600 dark:text-slate-300">
          Explore runs many schedules, each with its own seed and a fault plan drawn from that seed, and reports every one that breaks an invariant.
        </p>
      )}
      {state.status === 'running' && <Running state={state} onCancel={onCancel} />}
      {state.status === 'error' && !stale && (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-500/40 dark:bg-red-500/10 dark:text-red-100">
          <span className="font-semibold">The exploration stopped: </span>
          {state.message}
        </p>
      )}
      {state.status === 'error' && stale && (
        // Other code is in the editor now (a loop's message must not stay up over the Solution's runs).
        <p data-testid="explorer-stale" className="text-sm text-slate-600 dark:text-slate-300">
          The last exploration, of the code as it was then, stopped: {state.message} Explore again to check the code in the editor.
        </p>
      )}
      {state.status === 'done' && stale && (
        <p data-testid="explorer-stale" className="mb-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-400/10 dark:text-amber-100">
          These results are for the code as it was when you explored, not as it is now. Explore again to check the code in the
          editor; the counterexample below replays against the code as it is now.
        </p>
      )}
      {state.status === 'done' && <Done result={state.result} requested={state.requested} onReplay={onReplay} titles={titles} />}
    </section>
  );
}

function Running({ state, onCancel }: { state: Extract<ExplorerState, { status: 'running' }>; onCancel: () => void }) {
  const pct = state.total > 0 ? Math.round((state.done / state.total) * 100) : 0;
  const label = `${state.done} of ${state.total} schedules${state.schedulesPerSecond !== null ? ` · ${state.schedulesPerSecond} schedules/s` : ''}`;
  return (
    <div className="space-y-2">
      <div className="flex items-center justify-between gap-3">
        <p className="text-sm font-medium text-slate-800 tabular-nums dark:text-slate-200">
          Exploring: {label}
        </p>
        <button
          type="button"
          onClick={onCancel}
          className={`${BUTTON} border border-slate-300 text-slate-700 hover:bg-slate-100 dark:border-slate-600 dark:text-slate-200 dark:hover:bg-slate-800`}
        >
          Cancel
        </button>
      </div>
      <div
        role="progressbar"
        aria-label="Schedules explored"
        aria-valuemin={0}
        aria-valuemax={state.total}
        aria-valuenow={state.done}
        aria-valuetext={label}
        className="h-2.5 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
      >
        <div className="h-full rounded-full bg-teal-600 transition-[width] duration-200 dark:bg-teal-400" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

function Done({
  result,
  requested = result.runs,
  onReplay,
  titles,
}: {
  result: ExploreResult;
  requested?: number;
  onReplay: (cx: Replayable) => void;
  titles: Readonly<Record<string, string>>;
}) {
  const cx = result.counterexample;
  const histogram = Object.entries(result.histogram).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...histogram.map(([, n]) => n));
  const broken = Object.entries(result.byInvariant).filter(([, n]) => n > 0);
  const clean = result.violations === 0 && result.errors === 0 && result.failures === 0;
  const failed = result.firstFailure;
  // Cancelled part-way (a code error also ends it early, and says so below).
  const cancelled = result.runs < requested && result.errors === 0;

  if (cancelled && result.runs === 0) {
    return (
      <p data-testid="explorer-cancelled" className="text-sm font-medium text-slate-700 dark:text-slate-300">
        Cancelled before any schedule ran: nothing was checked. Explore again to check the code.
      </p>
    );
  }
  // Held so far is not a pass: a cancelled exploration is told in neutral words, not with a tick.
  const tone = !clean ? 'text-red-800 dark:text-red-300' : cancelled ? 'text-slate-800 dark:text-slate-200' : 'text-emerald-800 dark:text-emerald-300';

  return (
    <div className="space-y-4">
      <div>
        <p className={`text-base font-semibold ${tone}`}>
          {!(clean && cancelled) && (
            <span aria-hidden="true" className="mr-1.5">
              {clean ? '✓' : '✗'}
            </span>
          )}
          {cancelled && `Cancelled after ${result.runs} of ${requested} schedules: `}
          {result.violations} of {plural(result.runs, 'schedule')} violated an invariant
        </p>
        <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
          {result.variant} · seeds {result.firstSeed}–{result.firstSeed + Math.max(result.runs - 1, 0)} · faults drawn from the ones
          this lesson&rsquo;s design is meant to survive
          {result.schedulesPerSecond !== null && ` · ${result.schedulesPerSecond} schedules/s`}
        </p>
        {result.errors > 0 && (
          <p className="mt-2 text-sm text-red-800 dark:text-red-300">The code failed to load, so the exploration stopped after {plural(result.runs, 'schedule')}.</p>
        )}
      </div>

      {failed && (
        <div data-testid="explorer-failures" className="rounded-lg border border-red-200 bg-red-50/60 p-3 dark:border-red-500/30 dark:bg-red-500/10">
          <h3 className="text-sm font-semibold text-red-900 dark:text-red-100">
            Your code failed in {result.failures} of {plural(result.runs, 'schedule')}
          </h3>
          <p className="mt-1 text-sm break-words text-red-900/90 dark:text-red-100/90">
            First in seed {failed.seed}: {failed.process} {failed.line ? `(line ${failed.line}) ` : ''}
            {failureText(failed)}
          </p>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            An exploration with errors like this is not clean, even where no invariant broke: code that fails may simply never reach the
            side effect the invariants count.
          </p>
          <button
            type="button"
            onClick={() => onReplay({ seed: failed.seed, faults: failed.faults })}
            className={`${BUTTON} mt-3 bg-teal-700 text-white hover:bg-teal-800 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400`}
          >
            Replay seed {failed.seed}
          </button>
        </div>
      )}

      {broken.length > 0 && (
        <div>
          <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">Violations by invariant</h3>
          <ul className="mt-1.5 space-y-1">
            {broken.map(([id, n]) => (
              <li key={id} className="flex justify-between gap-3 text-sm text-slate-700 dark:text-slate-300">
                <span title={id}>{titles[id] ?? id}</span>
                <span className="tabular-nums">{plural(n, 'schedule')}</span>
              </li>
            ))}
          </ul>
        </div>
      )}

      {histogram.length > 0 && (
        <div>
          <h3 aria-hidden="true" className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">
            Outcomes
          </h3>
          <ul aria-label="Outcomes: schedules by what their side effects came to" className="mt-1.5 space-y-1.5">
            {histogram.map(([key, n]) => {
              const held = key === 'held';
              return (
                <li key={key} className="grid grid-cols-[minmax(0,14rem)_1fr_auto] items-center gap-3 text-sm">
                  {/* Wrapped, not cut: "Broke: Every order of the job is cha…" hid which invariant it was. */}
                  <span className="text-xs leading-snug break-words text-slate-700 dark:text-slate-300">
                    {outcomeName(key, titles)}
                  </span>
                  <span aria-hidden="true" className="h-3 overflow-hidden rounded-sm bg-slate-100 dark:bg-slate-800">
                    <span className={`block h-full rounded-sm ${held ? 'bg-emerald-500 dark:bg-emerald-400' : 'bg-red-500 dark:bg-red-400'}`} style={{ width: `${(n / max) * 100}%` }} />
                  </span>
                  <span className="text-right tabular-nums text-slate-700 dark:text-slate-300">
                    {n}
                    <span className="sr-only"> {n === 1 ? 'schedule' : 'schedules'}</span>
                  </span>
                </li>
              );
            })}
          </ul>
        </div>
      )}

      {cx && (
        <div className="rounded-lg border border-red-200 bg-red-50/60 p-3 dark:border-red-500/30 dark:bg-red-500/10">
          <h3 className="text-sm font-semibold text-red-900 dark:text-red-100">
            Smallest counterexample: <span title={cx.invariant}>{titles[cx.invariant] ?? cx.invariant}</span>
          </h3>
          <p className="mt-1 text-sm text-red-900/90 dark:text-red-100/90">{cx.detail}</p>
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            seed {cx.seed}, {plural(cx.faults.length, 'fault')}
            {cx.faults.length > 0 ? ': ' : ''}
            {cx.faults.map(describeFault).join('; ')}, {plural(cx.steps, 'scheduler step')}
          </p>
          <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">Shrunk with {plural(cx.shrinkRuns, 'extra run')}.</p>
          <button
            type="button"
            onClick={() => onReplay(cx)}
            className={`${BUTTON} mt-3 bg-teal-700 text-white hover:bg-teal-800 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400`}
          >
            Replay the smallest counterexample
          </button>
        </div>
      )}
    </div>
  );
}
