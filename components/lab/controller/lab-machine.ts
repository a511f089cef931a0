/**
 * The lab's controller: `booting → ready → running ⇄ paused → finished`, and `exploring`.
 *
 * `running.loading` asks the worker for a whole LabRun (the engine runs it to the end in one go);
 * `running.playing` then reveals its trace one event per TICK. TICKs come from a timer in the
 * component layer at the chosen speed, so the machine itself never reads the host's clock. The
 * worker calls are named actors (`runLab`, `explore`) that the workbench provides with
 * `.provide()`; tests can swap them the same way.
 *
 * During playback the event shown (`selected`) is the last event revealed (`visibleUpTo`); once
 * finished, everything is revealed and `selected` moves freely (scrubbing).
 *
 * Why one file of ~450 lines: a statechart reads as one definition; its guards and actions are
 * named in `setup` beside it, and what can stand alone (status, explorer state, fault plans,
 * the worker wiring) is in this folder's other files.
 */
import { assign, fromCallback, fromPromise, sendTo, setup, type ActorRefFrom } from 'xstate';
import type { RunAnswer } from '@/components/db/worker-client';
import type { Counterexample, ExploreResult } from '@/simulations/run/run';

/** A schedule to replay: a shrunk counterexample, or the first schedule an exploration's code failed in. */
/** A schedule to replay: its seed and faults, and its recorded choices (none: the seed draws its own, as an explored schedule's are). */
export type Replayable = Pick<Counterexample, 'seed' | 'faults'> & { choices?: Counterexample['choices'] };
import type { Fault } from '@/simulations/engine/types';
import type { UnhandledRejection } from '@/components/db/protocol';
import type { LabRun } from '@/simulations/run/lab-run';
import type { ExplorerState } from './explorer-state';
import { alreadyPlanned } from './fault-plans';

/** Playback speed: ~400 ms per event, ~100 ms per event, or straight to the end. */
export type Speed = '1x' | '4x' | 'instant';

export const SPEED_DELAY_MS: Record<Speed, number> = { '1x': 400, '4x': 100, instant: 0 };

export type { ExplorerState };

/** A message above the controls: why a run stopped, or what went wrong. */
export interface Notice {
  kind: 'stuck' | 'failed';
  text: string;
}

/** What a run request carries to the worker. */
export interface RunInput {
  code: string;
  seed: number;
  faults: Fault[];
  choices?: number[];
}

export interface ExploreInput {
  code: string;
  runs: number;
}

export interface LabContext {
  /**
   * The faults every Run starts from: the scenario's demonstration plan, or the plan a share link
   * or a replayed counterexample put in its place.
   */
  demoFaults: Fault[];
  seed: number;
  speed: Speed;
  /**
   * Scheduler choices that steer Runs of the plan (a replayed counterexample's, or a share link's
   * of a replayed schedule), for the code they were made with: other code runs by its seed.
   * `code` null: the code of the next Run (a share link's choices arrive before its code is chosen).
   * Dropped when the seed or the plan changes.
   */
  planChoices: { choices: number[]; code: string | null } | null;
  /** The choices that steered the run on screen; null when the seed alone made it. */
  runChoices: number[] | null;
  /** Faults injected by hand, added to the demonstration plan. */
  injected: Fault[];
  run: LabRun | null;
  /** The code the run on screen ran: a paused run is continued only while the editor still holds it. */
  runCode: string | null;
  unhandled: UnhandledRejection[];
  /** The last trace event revealed by playback; -1 before the first. */
  visibleUpTo: number;
  /** The event whose world is shown. */
  selected: number;
  /** Whether the verdict is shown. */
  revealed: boolean;
  /** Where playback continues after an injection reran the schedule. */
  resumeAt: number | null;
  /** Whether the run being loaded stops at its first event (Step from Ready) instead of playing. */
  pauseAfterLoad: boolean;
  /**
   * Steps asked for while a stepped run was still being computed: → → → from Ready lands on the
   * third event, none of the presses lost. Taken once the run is on screen.
   */
  stepsAhead: number;
  pending: RunInput | null;
  explorer: ExplorerState;
  notice: Notice | null;
}

export type LabEvent =
  | { type: 'DB_READY' }
  | { type: 'DB_DOWN' }
  | { type: 'RUN'; code: string }
  | { type: 'PAUSE' }
  | { type: 'TICK' }
  /** From Ready, `code` starts a run paused at its first event; elsewhere it moves one event on. */
  | { type: 'STEP'; code?: string }
  | { type: 'BACK' }
  | { type: 'SEEK'; index: number }
  | { type: 'SKIP' }
  | { type: 'RESET' }
  | { type: 'SET_SEED'; seed: number }
  | { type: 'SET_SPEED'; speed: Speed }
  /** Rerun with `fault` added, from the event on screen; `hold` stays paused there instead of playing on. */
  | { type: 'INJECT'; fault: Fault; code: string; hold?: boolean }
  | { type: 'CLEAR_FAULTS' }
  /** Replace the plan every Run starts from (a share link's seed and whole fault plan). */
  | { type: 'SET_PLAN'; seed: number; faults: Fault[]; choices?: number[] }
  | { type: 'EXPLORE'; code: string; runs: number }
  | { type: 'CANCEL_EXPLORE' }
  | { type: 'EXPLORE_PROGRESS'; done: number; total: number; schedulesPerSecond: number | null }
  | { type: 'EXPLORE_DONE'; result: ExploreResult }
  | { type: 'EXPLORE_FAILED'; message: string }
  | { type: 'REPLAY'; counterexample: Replayable; code: string }
  | { type: 'DISMISS_NOTICE' };

export interface LabInput {
  seed: number;
  demoFaults: Fault[];
}

const lastIndex = (run: LabRun | null) => (run ? run.result.trace.length - 1 : -1);

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A loaded run on screen at the event playback resumes from (the first, unless an injection reran it). */
function showLoaded(context: LabContext, output: RunAnswer): Partial<LabContext> {
  const last = output.run.result.trace.length - 1;
  const at = Math.min((context.resumeAt ?? 0) + (context.pauseAfterLoad ? context.stepsAhead : 0), last);
  return {
    run: output.run,
    runCode: context.pending?.code ?? null,
    runChoices: context.pending?.choices ?? null,
    unhandled: output.unhandled,
    visibleUpTo: at,
    selected: at,
    resumeAt: null,
    pauseAfterLoad: false,
    stepsAhead: 0,
    pending: null,
  };
}

export const labMachine = setup({
  types: {
    context: {} as LabContext,
    events: {} as LabEvent,
    input: {} as LabInput,
  },
  actors: {
    runLab: fromPromise<RunAnswer, RunInput>(async () => {
      throw new Error('runLab is provided by the workbench');
    }),
    explore: fromCallback<{ type: 'CANCEL' }, ExploreInput>(({ sendBack }) => {
      sendBack({ type: 'EXPLORE_FAILED', message: 'explore is provided by the workbench' });
    }),
  },
  guards: {
    atEnd: ({ context }) => context.visibleUpTo >= lastIndex(context.run),
    nextIsEnd: ({ context }) => context.visibleUpTo + 1 >= lastIndex(context.run),
    instant: ({ context }) => context.speed === 'instant',
    hasRun: ({ context }) => context.run !== null,
    canInject: ({ context, event }) =>
      context.run !== null && context.run.result.trace.length > 0 && !(event.type === 'INJECT' && alreadyPlanned(context.run.result.faults, event.fault)),
    // Run or Step with other code than the paused run's (an edit, another tab): that run is stale.
    codeChanged: ({ context, event }) => (event.type === 'RUN' || event.type === 'STEP') && event.code !== undefined && event.code !== context.runCode,
  },
  actions: {
    revealAll: assign(({ context }) => ({
      visibleUpTo: lastIndex(context.run),
      selected: lastIndex(context.run),
      revealed: true,
    })),
    advance: assign(({ context }) => ({ visibleUpTo: context.visibleUpTo + 1, selected: context.visibleUpTo + 1 })),
    planInjection: assign(({ context, event }) => {
      if (event.type !== 'INJECT' || !context.run) return {};
      const result = context.run.result;
      return {
        injected: [...context.injected, event.fault],
        // The run on screen again, with the fault: its own code, even if the editor has changed since.
        pending: { code: context.runCode ?? event.code, seed: result.seed, faults: [...result.faults, event.fault], choices: result.choices },
        resumeAt: Math.max(0, context.selected),
        pauseAfterLoad: event.hold === true,
        revealed: false,
        notice: null,
      };
    }),
    planRun: assign(({ context, event }) => {
      if (event.type !== 'RUN' && event.type !== 'STEP') return {};
      if (event.code === undefined) return {};
      // The plan's choices steer runs of the code they were made with (Reset, then Run or Step,
      // shows the same counterexample again); edited code runs by the seed alone.
      const plan = context.planChoices;
      const steer = plan !== null && (plan.code === null || plan.code === event.code);
      return {
        notice: null,
        planChoices: steer && plan.code === null ? { choices: plan.choices, code: event.code } : plan,
        pending: { code: event.code, seed: context.seed, faults: [...context.demoFaults, ...context.injected], choices: steer ? plan.choices : undefined },
      };
    }),
    planReplay: assign(({ event }) => {
      if (event.type !== 'REPLAY') return {};
      const cx = event.counterexample;
      // The counterexample becomes the plan: Reset and Run (or Step through it) show it again.
      return {
        notice: null,
        seed: cx.seed,
        demoFaults: [...cx.faults],
        injected: [],
        planChoices: cx.choices ? { choices: [...cx.choices], code: event.code } : null,
        pending: { code: event.code, seed: cx.seed, faults: cx.faults, choices: cx.choices },
      };
    }),
    clearRun: assign({ run: null, runCode: null, runChoices: null, unhandled: [], visibleUpTo: -1, selected: -1, revealed: false, resumeAt: null, pauseAfterLoad: false, stepsAhead: 0, pending: null }),
  },
}).createMachine({
  id: 'lab',
  context: ({ input }) => ({
    demoFaults: input.demoFaults,
    planChoices: null,
    runChoices: null,
    seed: input.seed,
    speed: '1x',
    injected: [],
    run: null,
    runCode: null,
    unhandled: [],
    visibleUpTo: -1,
    selected: -1,
    revealed: false,
    resumeAt: null,
    pauseAfterLoad: false,
    stepsAhead: 0,
    pending: null,
    explorer: { status: 'idle' },
    notice: null,
  }),
  initial: 'booting',
  on: {
    DB_DOWN: { target: '.booting' },
    SET_SEED: { actions: assign(({ context, event }) => ({ seed: event.seed, planChoices: event.seed === context.seed ? context.planChoices : null })) },
    SET_SPEED: { actions: assign({ speed: ({ event }) => event.speed }) },
    CLEAR_FAULTS: { actions: assign({ injected: [] }) },
    SET_PLAN: { actions: assign(({ event }) => ({ seed: event.seed, demoFaults: event.faults, injected: [], planChoices: event.choices ? { choices: event.choices, code: null } : null })) },
    DISMISS_NOTICE: { actions: assign({ notice: null }) },
  },
  states: {
    booting: {
      on: { DB_READY: [{ guard: 'hasRun', target: 'finished' }, { target: 'ready' }] },
    },
    ready: {
      on: {
        RUN: {
          target: 'running',
          actions: ['clearRun', 'planRun'],
        },
        // Step before any run: start the run and stop at its first event, as the fault hint promises.
        STEP: {
          guard: ({ event }) => event.code !== undefined,
          target: 'running',
          actions: ['clearRun', 'planRun', assign({ pauseAfterLoad: true })],
        },
        EXPLORE: 'exploring',
        REPLAY: {
          target: 'running',
          actions: [
            'clearRun',
            'planReplay',
          ],
        },
      },
    },
    running: {
      initial: 'loading',
      on: {
        RESET: { target: 'ready', actions: ['clearRun', assign({ notice: null })] },
      },
      states: {
        loading: {
          on: {
            STEP: { guard: ({ context }) => context.pauseAfterLoad, actions: assign(({ context }) => ({ stepsAhead: context.stepsAhead + 1 })) },
          },
          invoke: {
            src: 'runLab',
            input: ({ context }) => context.pending!,
            onDone: [
              {
                // Nothing to play: the code did not load (syntax error, missing export).
                guard: ({ event }) => event.output.run.result.trace.length === 0,
                target: '#lab.finished',
                actions: assign(({ context, event }) => ({
                  runChoices: context.pending?.choices ?? null,
                  run: event.output.run,
                  runCode: context.pending?.code ?? null,
                  unhandled: event.output.unhandled,
                  visibleUpTo: -1,
                  selected: -1,
                  revealed: true,
                  pending: null,
                })),
              },
              {
                guard: ({ context }) => context.pauseAfterLoad,
                target: '#lab.paused',
                actions: assign(({ context, event }) => showLoaded(context, event.output)),
              },
              { target: 'playing', actions: assign(({ context, event }) => showLoaded(context, event.output)) },
            ],
            onError: {
              target: '#lab.ready',
              actions: assign(({ event }) => {
                const error = event.error as Error;
                return {
                  run: null,
                  visibleUpTo: -1,
                  selected: -1,
                  revealed: false,
                  pending: null,
                  resumeAt: null,
                  pauseAfterLoad: false,
                  stepsAhead: 0,
                  notice: { kind: error?.name === 'StuckError' ? 'stuck' : 'failed', text: errorMessage(error) } satisfies Notice,
                };
              }),
            },
          },
        },
        playing: {
          always: { guard: 'atEnd', target: '#lab.finished', actions: 'revealAll' },
          on: {
            TICK: [
              { guard: 'instant', target: '#lab.finished', actions: 'revealAll' },
              { guard: 'nextIsEnd', target: '#lab.finished', actions: 'revealAll' },
              { actions: 'advance' },
            ],
            PAUSE: '#lab.paused',
            STEP: [{ guard: 'nextIsEnd', target: '#lab.finished', actions: 'revealAll' }, { target: '#lab.paused', actions: 'advance' }],
            BACK: {
              target: '#lab.paused',
              actions: assign(({ context }) => {
                const at = Math.max(0, context.visibleUpTo - 1);
                return { visibleUpTo: at, selected: at };
              }),
            },
            SEEK: {
              target: '#lab.paused',
              actions: assign(({ event }) => ({ visibleUpTo: event.index, selected: event.index })),
            },
            SKIP: { target: '#lab.finished', actions: 'revealAll' },
            INJECT: { guard: 'canInject', target: 'loading', actions: 'planInjection' },
          },
        },
      },
    },
    paused: {
      // Arriving at the last event (a shared step, a seek, an injection resumed there) is finishing.
      always: { guard: 'atEnd', target: 'finished', actions: 'revealAll' },
      on: {
        // Continue the paused run, unless the code changed since: then run the code on screen afresh.
        RUN: [{ guard: 'codeChanged', target: 'running', actions: ['clearRun', 'planRun'] }, { target: 'running.playing' }],
        STEP: [
          { guard: 'codeChanged', target: 'running', actions: ['clearRun', 'planRun', assign({ pauseAfterLoad: true })] },
          { guard: 'nextIsEnd', target: 'finished', actions: 'revealAll' },
          { actions: 'advance' },
        ],
        BACK: {
          actions: assign(({ context }) => {
            const at = Math.max(0, context.visibleUpTo - 1);
            return { visibleUpTo: at, selected: at };
          }),
        },
        SEEK: { actions: assign(({ event }) => ({ visibleUpTo: event.index, selected: event.index })) },
        SKIP: { target: 'finished', actions: 'revealAll' },
        RESET: { target: 'ready', actions: ['clearRun', assign({ notice: null })] },
        INJECT: { guard: 'canInject', target: 'running.loading', actions: 'planInjection' },
        EXPLORE: 'exploring',
      },
    },
    finished: {
      on: {
        // Run again from the start, with whatever code, seed and faults are current.
        RUN: {
          target: 'running',
          actions: ['clearRun', 'planRun'],
        },
        STEP: { actions: assign(({ context }) => ({ selected: Math.min(lastIndex(context.run), context.selected + 1) })) },
        BACK: { actions: assign(({ context }) => ({ selected: Math.max(0, context.selected - 1) })) },
        SEEK: { actions: assign(({ event }) => ({ selected: event.index })) },
        RESET: { target: 'ready', actions: ['clearRun', assign({ notice: null })] },
        INJECT: { guard: 'canInject', target: 'running.loading', actions: 'planInjection' },
        EXPLORE: 'exploring',
        REPLAY: {
          target: 'running',
          actions: [
            'clearRun',
            'planReplay',
          ],
        },
      },
    },
    exploring: {
      entry: assign(({ event }) => ({
        notice: null,
        explorer: { status: 'running', done: 0, total: event.type === 'EXPLORE' ? event.runs : 0, schedulesPerSecond: null } satisfies ExplorerState,
      })),
      invoke: {
        id: 'explorer',
        src: 'explore',
        input: ({ event }) => {
          if (event.type !== 'EXPLORE') throw new Error('exploring is entered by EXPLORE');
          return { code: event.code, runs: event.runs };
        },
      },
      on: {
        EXPLORE_PROGRESS: {
          actions: assign(({ event }) => ({
            explorer: { status: 'running', done: event.done, total: event.total, schedulesPerSecond: event.schedulesPerSecond } satisfies ExplorerState,
          })),
        },
        EXPLORE_DONE: [
          { guard: 'hasRun', target: 'finished', actions: assign(({ context, event }) => ({ explorer: explored(context.explorer, event.result) })) },
          { target: 'ready', actions: assign(({ context, event }) => ({ explorer: explored(context.explorer, event.result) })) },
        ],
        EXPLORE_FAILED: [
          {
            guard: 'hasRun',
            target: 'finished',
            actions: assign(({ event }) => ({ explorer: { status: 'error', message: event.message } satisfies ExplorerState })),
          },
          { target: 'ready', actions: assign(({ event }) => ({ explorer: { status: 'error', message: event.message } satisfies ExplorerState })) },
        ],
        CANCEL_EXPLORE: { actions: sendTo('explorer', { type: 'CANCEL' }) },
      },
    },
  },
});

export type LabActorRef = ActorRefFrom<typeof labMachine>;

/** The explorer's result, with how many schedules were asked for (fewer ran after a Cancel). */
function explored(before: ExplorerState, result: ExploreResult): ExplorerState {
  return { status: 'done', result, requested: before.status === 'running' ? before.total : result.runs };
}
