'use client';
/**
 * The controls bar: the playback actions as buttons, speed and seed, the scrubber, the fault
 * buttons and the fault plan, and the keyboard help. Every button performs a registered action.
 */
import { useId, useState } from 'react';
import { useTouchFirst } from '@/components/editor/editor-kind';
import { describeFaultAt } from '@/simulations/engine/faults';
import type { Fault } from '@/simulations/engine/types';
import { MAX_SEED } from '@/simulations/course/share-link';
import type { ActionContext, LabAction } from './actions/lab-actions';
import type { Speed } from './controller/lab-machine';
import { faultEventNumber } from './view/snapshots';

const KBD = 'rounded border border-slate-300 bg-slate-50 px-1 font-sans dark:border-slate-600 dark:bg-slate-800';

const SPEEDS: { value: Speed; label: string }[] = [
  { value: '1x', label: '1×' },
  { value: '4x', label: '4×' },
  { value: 'instant', label: 'Instant' },
];

const button =
  'inline-flex items-center rounded-lg px-3 py-1.5 text-sm font-semibold shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 disabled:cursor-not-allowed disabled:opacity-50';
const primary = `${button} bg-teal-700 text-white hover:bg-teal-800 dark:bg-teal-500 dark:text-slate-950 dark:hover:bg-teal-400`;
const secondary = `${button} bg-white text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-700 dark:hover:bg-slate-800`;
const danger = `${button} bg-white text-red-800 ring-1 ring-red-300 hover:bg-red-50 dark:bg-slate-900 dark:text-red-300 dark:ring-red-800 dark:hover:bg-red-950/40`;

function ActionButton({ action, ctx, variant = 'secondary' }: { action: LabAction; ctx: ActionContext; variant?: 'primary' | 'secondary' | 'danger' }) {
  const cls = variant === 'primary' ? primary : variant === 'danger' ? danger : secondary;
  return (
    <button
      type="button"
      data-action={action.name}
      data-rescue-to={action.focusAfter ? `[data-action="${action.focusAfter}"]` : undefined}
      disabled={!action.enabled(ctx)}
      onClick={() => action.perform(ctx)}
      aria-keyshortcuts={action.keyLabel ? action.keys.map((k) => (k === ' ' ? 'Space' : k)).join(' ') : undefined}
      className={cls}
    >
      {action.label}
    </button>
  );
}

/** A seed is a whole number from 0 to MAX_SEED (what share links accept too). */
export function parseSeed(text: string): number | null {
  if (!/^\d{1,10}$/.test(text.trim())) return null;
  const seed = Number(text.trim());
  return seed <= MAX_SEED ? seed : null;
}

/**
 * The seed as typed: a half-typed or invalid value stays in the box, marked and explained, and
 * is not applied (an empty box is not seed 0); leaving the box puts the seed in use back.
 */
function SeedField({ id, seed, onSeed }: { id: string; seed: number; onSeed(seed: number): void }) {
  const [text, setText] = useState(String(seed));
  const [shown, setShown] = useState(seed);
  if (shown !== seed) {
    // The seed changed elsewhere (a share link, a replayed counterexample): show it.
    setShown(seed);
    setText(String(seed));
  }
  const valid = parseSeed(text) !== null;
  const errorId = `${id}-error`;
  return (
    <>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        spellCheck={false}
        value={text}
        aria-invalid={!valid}
        aria-describedby={valid ? undefined : errorId}
        onChange={(e) => {
          setText(e.target.value);
          const next = parseSeed(e.target.value);
          if (next !== null) {
            setShown(next);
            onSeed(next);
          }
        }}
        onBlur={() => {
          if (!valid) setText(String(seed));
        }}
        className="w-28 rounded-lg border border-slate-300 bg-white px-2 py-1.5 font-mono text-sm text-slate-900 aria-invalid:border-red-500 aria-invalid:ring-1 aria-invalid:ring-red-500 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
      />
      {!valid && (
        <p
          id={errorId}
          role="alert"
          className="absolute top-full left-0 z-10 mt-1 w-60 rounded-md bg-white px-2 py-1 text-xs text-red-800 shadow-md ring-1 ring-red-300 dark:bg-slate-900 dark:text-red-300 dark:ring-red-800"
        >
          A seed is a whole number from 0 to {MAX_SEED}; seed {seed} is still in use.
        </p>
      )}
    </>
  );
}

export interface LabControlsProps {
  ctx: ActionContext;
  playback: readonly LabAction[];
  status: string;
  /** The status as a screen reader should hear it, when that differs (see spokenStatus). */
  spoken?: string;
}

const isBusy = (ctx: ActionContext) => ctx.state.matches({ running: 'loading' }) || ctx.state.matches('exploring') || ctx.state.matches('booting');

/** Whether the plan Runs start from is still the lesson's (seed and faults). */
function isLessonPlan(context: { seed: number; demoFaults: readonly Fault[] }, lesson: { seed: number; faults: readonly Fault[] }): boolean {
  return context.seed === lesson.seed && JSON.stringify(context.demoFaults) === JSON.stringify(lesson.faults);
}

export function LabControls({ ctx, playback, status, spoken = status }: LabControlsProps) {
  const speedId = useId();
  const seedId = useId();
  const scrubId = useId();
  const { context } = ctx.state;
  const run = context.run;
  const last = run ? run.result.trace.length - 1 : -1;
  const scrubMax = ctx.state.matches('finished') ? last : context.visibleUpTo;
  const canScrub = !!run && last >= 0 && !ctx.state.matches({ running: 'loading' });
  const busy = isBusy(ctx);

  return (
    <section
      aria-labelledby="controls-heading"
      data-testid="lab-controls"
      className="space-y-2 rounded-xl border border-slate-200 bg-white px-4 py-2.5 shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id="controls-heading" className="sr-only">
        Run controls
      </h2>
      <div className="flex flex-wrap items-center gap-3">
        <div role="toolbar" aria-label="Playback" className="flex flex-wrap items-center gap-2">
          {playback.map((a) => (
            <ActionButton key={a.name} action={a} ctx={ctx} variant={a.name === 'run' ? 'primary' : 'secondary'} />
          ))}
        </div>
        <div className="flex items-center gap-3">
          <div className="flex items-center gap-1.5">
            <label htmlFor={speedId} className="text-xs font-medium text-slate-700 dark:text-slate-300">
              Speed
            </label>
            <select
              id={speedId}
              value={context.speed}
              onChange={(e) => ctx.send({ type: 'SET_SPEED', speed: e.target.value as Speed })}
              className="rounded-lg border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
            >
              {SPEEDS.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          </div>
          <div className="relative flex items-center gap-1.5">
            <label htmlFor={seedId} className="text-xs font-medium text-slate-700 dark:text-slate-300">
              Seed
            </label>
            <SeedField id={seedId} seed={context.seed} onSeed={(seed) => ctx.send({ type: 'SET_SEED', seed })} />
          </div>
        </div>
        <p role="status" aria-live="polite" data-testid="lab-status" className="ml-auto text-sm text-slate-600 dark:text-slate-300">
          {busy && <span aria-hidden="true" className="mr-2 inline-block size-2 animate-pulse rounded-full bg-amber-400" />}
          {spoken === status ? (
            status
          ) : (
            <>
              <span aria-hidden="true">{status}</span>
              <span className="sr-only">{spoken}</span>
            </>
          )}
        </p>
      </div>

      <div className="flex items-center gap-3">
        <label htmlFor={scrubId} className="shrink-0 text-xs font-medium text-slate-700 dark:text-slate-300">
          Event
        </label>
        <input
          id={scrubId}
          type="range"
          min={0}
          max={Math.max(0, last)}
          value={Math.max(0, context.selected)}
          disabled={!canScrub}
          // The whole run's length, so the thumb shows how far playback is; it cannot go past
          // what playback has revealed so far.
          onChange={(e) => ctx.send({ type: 'SEEK', index: Math.min(Number(e.target.value), Math.max(0, scrubMax)) })}
          aria-valuetext={run && context.selected >= 0 ? `event ${context.selected + 1} of ${last + 1}: ${run.result.trace[context.selected]?.text ?? ''}` : 'no run yet'}
          className="w-full accent-teal-700 disabled:opacity-40 dark:accent-teal-400"
        />
        <span className="w-20 shrink-0 text-right font-mono text-xs text-slate-600 dark:text-slate-300" aria-hidden="true">
          {run && context.selected >= 0 ? `${context.selected + 1} / ${last + 1}` : '– / –'}
        </span>
      </div>

    </section>
  );
}

export interface FaultControlsProps {
  ctx: ActionContext;
  faults: readonly LabAction[];
  /** The lesson's own seed and faults: offered back when a replay or a share link replaced them. */
  lessonPlan?: { seed: number; faults: readonly Fault[] };
}

/** The fault buttons, the fault plan of the run on screen, and the keyboard help: a pane of the run's views. */
export function FaultControls({ ctx, faults, lessonPlan }: FaultControlsProps) {
  const touchFirst = useTouchFirst();
  const { context } = ctx.state;
  const run = context.run;
  const busy = isBusy(ctx);
  const plan = [...context.demoFaults, ...context.injected];
  const runFaults = run?.result.faults;
  return (
    <section
      aria-labelledby="faults-heading"
      data-pane="faults"
      className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id="faults-heading" className="sr-only">
        Faults
      </h2>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2 dark:border-slate-800">
        <div>
          <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">Inject a fault at the event shown</h3>
          <div role="toolbar" aria-label="Faults" className="mt-2 flex flex-wrap gap-2">
            {faults.map((a) => (
              <ActionButton key={a.name} action={a} ctx={ctx} variant="danger" />
            ))}
          </div>
          <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
            Pause (or step) to the moment you want, then inject: the same schedule runs again with the fault added and
            playback continues from there. A button is dimmed where its fault could not happen: its worker is down at
            that moment, no call is left whose response could be lost, or no consumer holds a message to hand to a
            second one.
          </p>
        </div>
        <div>
          <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">Fault plan</h3>
          <ul data-testid="fault-plan" className="mt-2 space-y-1 text-sm text-slate-700 dark:text-slate-200">
            {(runFaults ?? plan).length === 0 && <li className="text-slate-500 italic dark:text-slate-400">No faults</li>}
            {(runFaults ?? plan).map((f, i) => {
              const event = faultEventNumber(run?.result, i);
              const missed = runFaults !== undefined && event === null;
              return (
                <li key={i} className={`flex gap-2 ${missed ? 'text-slate-500 dark:text-slate-400' : ''}`}>
                  <span aria-hidden="true" className={missed ? '' : 'text-red-600 dark:text-red-400'}>⚡</span>
                  <span>
                    {describeFaultAt(f, event)}
                    {missed && <em> — never happened in this run</em>}
                  </span>
                </li>
              );
            })}
          </ul>
          {context.injected.length > 0 && (
            <button type="button" onClick={() => ctx.send({ type: 'CLEAR_FAULTS' })} className={`${secondary} mt-2 mr-2 py-1 text-xs`}>
              Clear injected faults
            </button>
          )}
          {lessonPlan && !isLessonPlan(context, lessonPlan) && !busy && (
            <button
              type="button"
              data-testid="lesson-plan"
              onClick={() => {
                // Back to Ready, with the lesson's seed and faults as the plan on screen.
                if (run) ctx.send({ type: 'RESET' });
                ctx.send({ type: 'SET_PLAN', seed: lessonPlan.seed, faults: [...lessonPlan.faults] });
              }}
              className={`${secondary} mt-2 py-1 text-xs`}
            >
              Back to the lesson&apos;s seed and faults
            </button>
          )}
        </div>
      </div>

      {/* Folded on touch-only devices (a tablet's keyboard still works: it is one tap away). */}
      <details className="border-t border-slate-200 pt-3 text-sm dark:border-slate-800" open={touchFirst !== true}>
        <summary className="cursor-pointer text-xs font-semibold text-slate-600 dark:text-slate-300">Keyboard</summary>
        <ul data-testid="keyboard-help" className="mt-2 flex flex-wrap gap-x-5 gap-y-1 text-xs text-slate-600 dark:text-slate-300">
          <li><kbd className={KBD}>Space</kbd> run / pause</li>
          <li><kbd className={KBD}>→</kbd> step</li>
          <li><kbd className={KBD}>←</kbd> back</li>
          <li><kbd className={KBD}>End</kbd> skip to end</li>
          <li><kbd className={KBD}>R</kbd> reset</li>
          <li><kbd className={KBD}>E</kbd> explore</li>
          <li>when the focus is not in the editor</li>
        </ul>
      </details>
    </section>
  );
}
