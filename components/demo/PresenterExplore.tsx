'use client';
/**
 * Presenter mode's "explore both": the starter and the solution, each over the same 200 schedules
 * (seeds 1–200, faults drawn from each seed), side by side in projector type. The demonstration
 * shows one schedule; this is the room's answer to "but is that the only way it breaks?" — the
 * starter breaks in many, the solution in none. A modal dialog: Escape or Close ends it, and
 * closing cancels what is still running.
 */
import { useEffect, useRef, useState } from 'react';
import { useDatabase } from '@/components/db/PgliteProvider';
import { EXPLORE_RUNS } from '@/components/lab/actions/lab-actions';
import type { LabScenario } from '@/components/lab/lab-scenario';
import type { ExploreResult } from '@/simulations/run/run';
import { PresenterDialog } from './PresenterDialog';

type Variant = 'starter' | 'solution';
const VARIANTS: readonly Variant[] = ['starter', 'solution'];

type Row =
  | { status: 'waiting' }
  | { status: 'running'; done: number; total: number }
  | { status: 'done'; result: ExploreResult }
  | { status: 'failed'; message: string };

const WAITING: Record<Variant, Row> = { starter: { status: 'waiting' }, solution: { status: 'waiting' } };

/** "143 of 200 schedules broke an invariant" / "none of 200 schedules broke an invariant", for a finished row. */
export function exploredLine(result: Pick<ExploreResult, 'runs' | 'violations'>): string {
  return result.violations === 0 ? `none of ${result.runs} schedules broke an invariant` : `${result.violations} of ${result.runs} schedules broke an invariant`;
}

export function PresenterExplore({ scenario, onClose }: { scenario: LabScenario; onClose: () => void }) {
  const db = useDatabase();
  const dbRef = useRef(db);
  dbRef.current = db;
  const ready = db.status === 'ready';
  const [rows, setRows] = useState<Record<Variant, Row>>(WAITING);

  // The starter, then the solution, each spread over the database workers. (Both at once was
  // slower: 5–20 % on two cores, their shares interleaved on each worker.)
  useEffect(() => {
    if (!ready) return;
    let live = true;
    let cancel: (() => void) | null = null;
    (async () => {
      for (const variant of VARIANTS) {
        if (!live) return;
        const job = dbRef.current.explore(
          // The room sees how many schedules broke, not a counterexample: none is shrunk.
          { scenario: scenario.id, variant, code: scenario.variants[variant].code, runs: EXPLORE_RUNS, shrinkBudget: 0 },
          (p) => live && setRows((r) => ({ ...r, [variant]: { status: 'running', done: p.done, total: p.total } })),
        );
        cancel = job.cancel;
        setRows((r) => ({ ...r, [variant]: { status: 'running', done: 0, total: EXPLORE_RUNS } }));
        try {
          const result = await job.result;
          if (live) setRows((r) => ({ ...r, [variant]: { status: 'done', result } }));
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          // The rows after it will not run: say so rather than wait for ever.
          if (live) setRows((r) => ({ ...r, [variant]: { status: 'failed', message }, ...(variant === 'starter' ? { solution: { status: 'failed', message: 'not explored, as the starter’s exploration failed' } } : {}) }));
          return;
        }
      }
    })();
    return () => {
      live = false;
      cancel?.();
    };
  }, [ready, scenario]);

  const titles = Object.fromEntries(scenario.invariants.map((i) => [i.id, i.title]));
  const finished = VARIANTS.every((v) => rows[v].status === 'done');

  return (
    <PresenterDialog
      id="presenter-explore"
      title={`${scenario.title} — the same ${EXPLORE_RUNS} schedules for both`}
      onClose={onClose}
      size="w-[min(72rem,94vw)]"
      footer={
        <p className="text-xl font-semibold short:text-lg" role="status" aria-live="polite" data-testid="presenter-explore-summary">
          {finished ? summary(rows.starter, rows.solution) : ''}
        </p>
      }
    >
      <p className="mt-2 text-xl text-slate-700 short:text-lg dark:text-slate-300">
        Seeds 1–{EXPLORE_RUNS}, each with faults drawn from its seed among those this lesson&rsquo;s design is meant to survive. Red:
        schedules that broke an invariant; green: schedules that held.
      </p>
      <div className="mt-6 space-y-6 short:mt-4 short:space-y-4">
        {VARIANTS.map((variant) => (
          <ExploreRow key={variant} label={variant === 'starter' ? 'Starter' : 'Solution'} row={rows[variant]} titles={titles} ready={ready} />
        ))}
      </div>
    </PresenterDialog>
  );
}

/** The sentence the room is left with, once both are explored. */
function summary(starter: Row, solution: Row): string {
  if (starter.status !== 'done' || solution.status !== 'done') return '';
  const s = starter.result.violations;
  const f = solution.result.violations;
  const runs = starter.result.runs;
  if (s > 0 && f === 0) return `The demonstration was one schedule: the starter breaks in ${s === runs ? `all ${runs}` : s} of these, the solution in none.`;
  return `Starter: ${exploredLine(starter.result)}. Solution: ${exploredLine(solution.result)}.`;
}

function ExploreRow({ label, row, titles, ready }: { label: string; row: Row; titles: Record<string, string>; ready: boolean }) {
  const done = row.status === 'done' ? row.result : null;
  const share = done && done.runs > 0 ? done.violations / done.runs : row.status === 'running' && row.total > 0 ? row.done / row.total : 0;
  const broken = done ? Object.entries(done.byInvariant).filter(([, n]) => n > 0) : [];
  return (
    <section data-testid={`presenter-explore-${label.toLowerCase()}`} data-status={row.status} aria-label={label}>
      <p className="flex flex-wrap items-baseline gap-x-4 text-3xl font-bold short:text-2xl">
        <span className="w-40">{label}</span>
        <span className={done ? (done.violations > 0 ? 'text-red-800 dark:text-red-300' : 'text-emerald-800 dark:text-emerald-300') : 'text-slate-600 dark:text-slate-300'}>
          {done
            ? exploredLine(done)
            : row.status === 'running'
              ? `exploring… ${row.done} of ${row.total}`
              : row.status === 'failed'
                ? `could not explore: ${row.message}`
                : ready
                  ? 'waiting for the starter'
                  : 'waiting for the in-browser database'}
        </span>
      </p>
      {/* Red: schedules that broke an invariant; green: schedules that held (while running, grey: done so far). */}
      <div className={`mt-2 h-5 overflow-hidden rounded-full ${done ? 'bg-emerald-600' : 'bg-slate-200 dark:bg-slate-800'}`} aria-hidden="true">
        <div className={`h-full ${done ? 'bg-red-600' : 'bg-slate-500'}`} style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
      {broken.length > 0 && (
        <ul className="mt-2 text-xl text-slate-800 short:text-lg dark:text-slate-200">
          {broken.map(([id, n]) => (
            <li key={id}>
              ✗ {titles[id] ?? id}: {n} {n === 1 ? 'schedule' : 'schedules'}
            </li>
          ))}
          {broken.length > 1 && <li className="text-lg text-slate-600 short:text-base dark:text-slate-400">A schedule can break several of these.</li>}
        </ul>
      )}
    </section>
  );
}
