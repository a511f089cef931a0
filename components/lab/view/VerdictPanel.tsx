/**
 * The verdict of one run: held or violated, each invariant with its evidence, and a way to jump
 * to the step where one broke. A live region, so a screen reader hears the verdict when it lands.
 */
import { EXPLORE_RUNS } from '../actions/lab-actions';
import type { RunResult } from '@/simulations/run/run';
import { wasThrown } from '@/simulations/run/failure';
import { whoseCode } from '../whose-code';
import { groupRepeats, timesSuffix } from '../repeats';

export interface VerdictPanelProps {
  /** The run to judge; null before the first run. */
  result: RunResult | null;
  /** False while the run is being played back: the verdict is kept until playback ends. */
  revealed: boolean;
  /** A run is in progress. */
  running: boolean;
  /** Select trace event `i` (the step where an invariant broke). */
  onSelectStep: (i: number) => void;
  /** How many of the run's faults were injected by hand (beyond the plan); 0 when none. */
  injectedByHand?: number;
  /** The last exploration's counts, if one finished: said while there is no run to judge yet. */
  explored?: { runs: number; violations: number } | null;
}

const ENDINGS: Record<RunResult['ending'], string> = {
  finished: 'Finished',
  horizon: 'Stopped at the time horizon',
  stuck: 'Stuck: every process was waiting',
  'step-limit': 'Stopped at the step limit',
};

export function VerdictPanel({ result, revealed, running, onSelectStep, injectedByHand = 0, explored = null }: VerdictPanelProps) {
  return (
    <section
      role="status"
      aria-live="polite"
      aria-label="Verdict"
      className="rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      {running || !result || !revealed ? <Pending running={running} explored={result ? null : explored} /> : <Verdict result={result} onSelectStep={onSelectStep} injectedByHand={injectedByHand} />}
    </section>
  );
}

/** What the panel says before a verdict: running, or what to do (and what Explore already found). */
export function pendingText(running: boolean, explored: VerdictPanelProps['explored']): string {
  if (running) return 'Running…';
  if (!explored) return 'Run the scenario to see the verdict';
  const found = explored.violations ? `${explored.violations} of ${explored.runs} broke an invariant` : `none of ${explored.runs} broke an invariant`;
  return `Explore tried ${explored.runs} schedules: ${found} (the Explorer says which). Run the scenario to watch one and see its verdict.`;
}

function Pending({ running, explored }: { running: boolean; explored: VerdictPanelProps['explored'] }) {
  return (
    <div className="flex items-center gap-3 px-4 py-4">
      {running ? (
        <span aria-hidden="true" className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-teal-600 dark:border-slate-600 dark:border-t-teal-400" />
      ) : (
        <span aria-hidden="true" className="size-4 rounded-full border-2 border-dashed border-slate-300 dark:border-slate-600" />
      )}
      <p className="text-sm text-slate-600 dark:text-slate-300">{pendingText(running, explored)}</p>
    </div>
  );
}

/**
 * The faults part of the verdict's summary line: the faults that took effect, how many of them by
 * hand, and how many planned ones never happened (their step never came, or their worker was
 * already down) and so changed nothing.
 */
export function faultsNote(result: Pick<RunResult, 'faults' | 'faultEvents'>, injectedByHand: number): string {
  const happened = result.faultEvents.filter((e) => e !== null).length;
  const missed = result.faults.length - happened;
  let note = happened > 0 ? ` · ${happened} ${happened === 1 ? 'fault' : 'faults'}${injectedByHand > 0 ? ` (${injectedByHand} injected by hand)` : ''}` : '';
  if (missed > 0) note += ` · ${missed} planned ${missed === 1 ? 'fault' : 'faults'} never happened`;
  return note;
}

function Verdict({ result, onSelectStep, injectedByHand }: { result: RunResult; onSelectStep: (i: number) => void; injectedByHand: number }) {
  const broken = result.invariants.filter((inv) => !inv.held);
  // Held, but the code threw: every invariant can hold because nothing was done (a checkout that
  // never saved an order promised none). Not shown as a success, and the lesson is not passed.
  const heldButThrew = result.verdict === 'held' && result.codeErrors.length > 0;
  const allThrown = result.codeErrors.every(wasThrown);
  const tone = heldButThrew
    ? 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100'
    : result.verdict === 'held'
      ? 'border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-500/30 dark:bg-emerald-500/10 dark:text-emerald-100'
      : 'border-red-200 bg-red-50 text-red-900 dark:border-red-500/30 dark:bg-red-500/10 dark:text-red-100';
  const headline = heldButThrew
    ? `Held, but the code ${allThrown ? 'threw' : 'failed'}: the invariants held, and the errors below may be why nothing broke`
    : result.verdict === 'held'
      ? 'Held: every invariant kept'
      : result.verdict === 'error'
        ? 'Error: the code could not run'
        : `Violated: ${broken.map((inv) => inv.title).join('; ')}`;

  return (
    <div className="pb-3">
      <div className={`flex items-start gap-3 rounded-t-xl border-b px-4 py-3 ${tone}`}>
        <span aria-hidden="true" className="mt-0.5 text-lg leading-none font-bold">
          {heldButThrew ? '!' : result.verdict === 'held' ? '✓' : '✗'}
        </span>
        <div className="min-w-0">
          <p className="text-base font-semibold">{headline}</p>
          <p className="mt-0.5 text-xs opacity-80">
            {result.variant} · seed {result.seed} · {result.steps} scheduler {result.steps === 1 ? 'step' : 'steps'}, {result.trace.length}{' '}
            {result.trace.length === 1 ? 'event' : 'events'}
            {faultsNote(result, injectedByHand)}
          </p>
        </div>
      </div>

      {result.verdict === 'held' && !heldButThrew && (
        <p data-testid="held-explore-hint" className="mx-4 mt-3 text-sm text-slate-600 dark:text-slate-300">
          That is one schedule. <strong className="font-semibold">Explore</strong>
          <span className="pointer-coarse:hidden"> (E)</span> runs {EXPLORE_RUNS} more, each with faults drawn from its
          seed, and shows the smallest one {whoseCode(result.variant).codeMidSentence} does not survive, if there is one.
        </p>
      )}

      {result.verdict === 'violated' && broken.every((inv) => inv.beyondKeys) && (
        <p data-testid="beyond-keys-note" className="mx-4 mt-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100">
          Beyond keys: every repeat in this run came after a crash between the provider&rsquo;s call and the statement that
          records it, then taken over under the same key by a provider that no longer knew it (it had forgotten the key, or keeps
          none). No key closes that gap; only asking the provider what it already did can. Explore does not count such a schedule against{' '}
          {whoseCode(result.variant).codeMidSentence}.
        </p>
      )}

      {result.verdict === 'violated' && injectedByHand > 0 && !broken.every((inv) => inv.beyondKeys) && (
        <p data-testid="injected-note" className="mx-4 mt-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100">
          You injected a fault by hand. Explore draws only the faults this lesson&rsquo;s design is meant to survive; one
          injected by hand may be beyond any code, such as a job that is never restarted after its crash, or a lost answer that
          nothing can safely retry.{' '}
          {result.variant === 'solution'
            ? 'The Solution did not survive this one, so it is such a fault: beyond what this lesson’s design covers.'
            : 'To tell which, switch to the Solution and inject the same fault at the same event: if the Solution holds, your code should survive it too.'}{' '}
          The evidence above says which invariant broke and why.
        </p>
      )}

      {result.error && (
        <div className="mx-4 mt-4 rounded-lg border border-red-300 bg-red-50 px-3 py-2 dark:border-red-500/40 dark:bg-red-950/40">
          <p className="text-xs font-semibold tracking-wide text-red-800 uppercase dark:text-red-300">
            Code error{result.error.line !== undefined && ` · line ${result.error.line}`}
            {result.error.column !== undefined && `, column ${result.error.column}`}
          </p>
          <pre className="mt-1 font-mono text-sm break-words whitespace-pre-wrap text-red-900 dark:text-red-100">{result.error.message}</pre>
        </div>
      )}

      {result.codeErrors.length > 0 && (
        <div className="mx-4 mt-4">
          <h3 className="text-xs font-semibold tracking-wide text-red-800 uppercase dark:text-red-300">
            {result.codeErrors.every((e) => e.returned) ? 'Answers the caller could not act on, from' : allThrown ? 'Errors thrown by' : 'Errors in'}{' '}
            {whoseCode(result.variant).codeMidSentence}
          </h3>
          <ul className="mt-1 space-y-1">
            {groupRepeats(result.codeErrors).map((e, k) => (
              <li key={k} className="rounded-md bg-red-50 px-2 py-1 font-mono text-xs break-words text-red-900 dark:bg-red-950/40 dark:text-red-100">
                {e.process}: {e.message}
                {e.line !== undefined && ` (line ${e.line})`}
                {timesSuffix(e.count)}
              </li>
            ))}
          </ul>
        </div>
      )}

      {result.ending !== 'finished' && (
        <p className="mx-4 mt-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100">
          <span className="font-semibold">{ENDINGS[result.ending]}</span>
          {result.endingDetail ? ` — ${result.endingDetail}.` : '.'}
        </p>
      )}

      {result.invariants.length > 0 && (
        <ul className="mt-2 divide-y divide-slate-100 px-4 dark:divide-slate-800" aria-label="Invariants">
          {result.invariants.map((inv) => (
            <li key={inv.id} className="flex items-start gap-3 py-2.5">
              <span
                aria-hidden="true"
                className={`mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full text-xs font-bold ${
                  inv.held
                    ? 'bg-emerald-100 text-emerald-800 dark:bg-emerald-500/20 dark:text-emerald-300'
                    : 'bg-red-100 text-red-800 dark:bg-red-500/20 dark:text-red-300'
                }`}
              >
                {inv.held ? '✓' : '✗'}
              </span>
              <div className="min-w-0 flex-1">
                <p className="text-sm font-medium text-slate-900 dark:text-slate-100">
                  <span className="sr-only">{inv.held ? 'Held: ' : 'Broken: '}</span>
                  {inv.title}
                </p>
                <p className="mt-0.5 text-sm break-words text-slate-600 dark:text-slate-400">{inv.detail}</p>
              </div>
              {!inv.held && inv.step !== undefined && (
                <button
                  type="button"
                  onClick={() => onSelectStep(inv.step!)}
                  className="shrink-0 rounded-md border border-red-300 bg-white px-2.5 py-1 text-xs font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 dark:border-red-500/40 dark:bg-slate-900 dark:text-red-200 dark:hover:bg-red-500/10"
                >
                  Show event {inv.step + 1}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
