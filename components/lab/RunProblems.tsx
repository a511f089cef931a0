'use client';
/**
 * What went wrong with the learner's code, in words: a stuck loop the watchdog stopped, code that
 * would not load (syntax error, missing export), errors thrown while handling a message, promises
 * rejected with nobody listening. The same problems become markers on the learner's lines.
 */
import type { UnhandledRejection } from '@/components/db/protocol';
import type { EditorMarker } from '@/components/editor/CodeEditor';
import type { RunResult } from '@/simulations/run/run';
import type { CodeError } from '@/simulations/lessons/kit/scenario';
import type { Notice } from './controller/lab-machine';
import { groupRepeats, timesSuffix } from './repeats';
import { whoseCode } from './whose-code';

/**
 * The learner's errors a replay has reached: while the playhead is at event `upTo` an error thrown
 * later in the run is not shown yet (it would give the ending away); `null` shows them all.
 */
export function errorsSoFar(result: RunResult | null, upTo: number | null): CodeError[] {
  const errors = result?.codeErrors ?? [];
  return upTo === null ? errors : errors.filter((e) => e.event === undefined || e.event <= upTo);
}

/** Markers for the editor: one per distinct problem with a line (up to the playhead, see errorsSoFar). */
export function problemMarkers(result: RunResult, unhandled: readonly UnhandledRejection[], upTo: number | null = null): EditorMarker[] {
  const out: EditorMarker[] = [];
  const seen = new Set<string>();
  const add = (m: EditorMarker) => {
    const key = `${m.line}:${m.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(m);
  };
  if (result.error?.line) add({ line: result.error.line, column: result.error.column ? result.error.column : undefined, message: result.error.message });
  for (const e of errorsSoFar(result, upTo)) if (e.line) add({ line: e.line, column: e.column, message: `${e.message} (thrown in ${e.process})` });
  for (const u of unhandled) if (u.line) add({ line: u.line, message: `Unhandled rejection: ${u.message}`, severity: 'warning' });
  return out;
}

const at = (line?: number) => (line ? ` (line ${line})` : '');

export interface RunProblemsProps {
  notice: Notice | null;
  result: RunResult | null;
  unhandled: readonly UnhandledRejection[];
  /** The playhead: errors after this event are not shown yet; null shows them all. */
  upTo: number | null;
  onDismiss(): void;
}

export function RunProblems({ notice, result, unhandled, upTo, onDismiss }: RunProblemsProps) {
  const codeErrors = groupRepeats(errorsSoFar(result, upTo));
  const loadError = result?.verdict === 'error' ? result.error : undefined;
  // Shown once the playhead reaches the end, where the engine stopped the run.
  const stepLimit = result?.ending === 'step-limit' && (upTo === null || upTo >= result.trace.length - 1) ? result : undefined;
  if (!notice && !loadError && !stepLimit && codeErrors.length === 0 && unhandled.length === 0) return null;
  const owner = whoseCode(result?.variant);
  return (
    <div role="alert" data-testid="run-problems" className="space-y-3">
      {notice && (
        <div className="flex items-start justify-between gap-3 rounded-xl border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100">
          <div>
            <p className="font-semibold" data-testid="notice-text">
              {notice.text}
            </p>
            {notice.kind === 'stuck' && (
              <p className="mt-1 text-xs">
                Learner code runs in a worker with the database; a loop that never awaits anything blocks both, and so
                does one SQL statement that runs that long (a <code className="font-mono">pg_sleep(3)</code>), so the
                worker was replaced and the database is starting again. Look for a <code className="font-mono">while</code> or{' '}
                <code className="font-mono">for</code> loop without an <code className="font-mono">await</code> inside, or a
                slow statement.
              </p>
            )}
          </div>
          <button type="button" onClick={onDismiss} className="rounded-md px-2 py-0.5 text-xs font-semibold ring-1 ring-red-300 hover:bg-white dark:ring-red-700 dark:hover:bg-red-900/40">
            Dismiss
          </button>
        </div>
      )}
      {loadError && (
        <div className="rounded-xl border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100">
          <p className="font-semibold">
            {owner.code} could not run{at(loadError.line)}.
          </p>
          <p className="mt-1 font-mono text-xs break-words" data-testid="load-error">
            {loadError.message}
            {loadError.line ? ` — line ${loadError.line}${loadError.column ? `, column ${loadError.column}` : ''}` : ''}
          </p>
        </div>
      )}
      {stepLimit && (
        <div data-testid="step-limit" className="rounded-xl border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100">
          <p className="font-semibold">
            The run was stopped after {stepLimit.steps.toLocaleString('en')} steps: {owner.codeMidSentence} kept working without
            end.
          </p>
          <p className="mt-1 text-xs">
            A loop that keeps calling <code className="font-mono">env</code> (a query, a send, a sleep) never gives the run a
            chance to finish. Look for a loop whose way out never comes, such as a retry without a limit.
          </p>
        </div>
      )}
      {codeErrors.length > 0 && (
        <div className="rounded-xl border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100">
          <p className="font-semibold">
            {codeErrors.every((e) => e.returned)
              ? `${owner.handler} returned something its caller cannot act on, so that delivery was not acknowledged (the queue may deliver it again).`
              : codeErrors.every((e) => /^(worker|handler)-\d+$/.test(e.process))
                ? `${owner.handler} threw while handling a message, so that delivery was not acknowledged (the queue may deliver it again).`
                : `${owner.code} threw an error it did not catch.`}
          </p>
          <ul className="mt-1 space-y-1 font-mono text-xs" data-testid="code-errors">
            {codeErrors.map((e, i) => (
              <li key={i} className="break-words">
                {e.process}: {e.message}
                {e.line ? ` — line ${e.line}` : ''}
                {timesSuffix(e.count)}
              </li>
            ))}
          </ul>
        </div>
      )}
      {unhandled.length > 0 && (
        <div className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-400/10 dark:text-amber-100">
          <p className="font-semibold">A promise was rejected and nobody awaited it. The run went on without it.</p>
          <ul className="mt-1 space-y-1 font-mono text-xs" data-testid="unhandled-rejections">
            {groupRepeats(unhandled.map((u) => ({ process: '', ...u }))).map((u, i) => (
              <li key={i} className="break-words">
                {u.message}
                {u.line ? ` — line ${u.line}` : ''}
                {timesSuffix(u.count)}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
