/**
 * The lab's controls as registered actions (Excalidraw's pattern): one object per command, with
 * its name, label, keys, when it is enabled and what it does. The buttons, the keyboard handler
 * and the tests all go through these, so a shortcut can never do something the button would not.
 */
import type { SnapshotFrom } from 'xstate';
import { traceToJson, traceToMermaid } from '@/simulations/run/trace-export';
import type { Fault, TraceEvent } from '@/simulations/engine/types';
import type { LabEvent, labMachine } from '../controller/lab-machine';
import { alreadyPlanned } from '../controller/fault-plans';

export { alreadyPlanned };
import { callKindOf, canRedeliver, workersOf, type LabScenario } from '../lab-scenario';

/** How many schedules "Explore" runs. */
export const EXPLORE_RUNS = 200;

/** What an action sees and touches. */
export interface ActionContext {
  state: SnapshotFrom<typeof labMachine>;
  send(event: LabEvent): void;
  /** The code the editor shows now (the selected variant, or the learner's own). */
  code(): string;
  scenario: LabScenario;
  /** Copy a link to what the lab shows now (provided by the workbench; absent where sharing is not offered). */
  share?(): void;
  /** Copy `text` to the clipboard, or show it to copy by hand (provided by the workbench). */
  copy?(label: string, text: string): void;
}

export interface LabAction {
  name: string;
  /** The button's accessible name. */
  label: string;
  /** `KeyboardEvent.key` values that trigger it when focus is outside the editor. */
  keys: string[];
  /** What the keyboard help says about the keys. */
  keyLabel?: string;
  enabled(ctx: ActionContext): boolean;
  perform(ctx: ActionContext): void;
  /** Another action's name: where keyboard focus goes when this one is disabled under it. */
  focusAfter?: string;
}

const is = (ctx: ActionContext, ...states: string[]) => states.some((s) => ctx.state.matches(s as never));

/** Whether a run is on screen at an event a fault can be injected at. */
function atEvent(ctx: ActionContext): boolean {
  const run = ctx.state.context.run;
  return !!run && run.result.trace.length > 0 && ctx.state.context.selected >= 0 && is(ctx, 'running.playing', 'paused', 'finished');
}


/** The trace event being looked at (the one an injected fault lands on). */
function currentStep(ctx: ActionContext): number {
  const { run, selected } = ctx.state.context;
  return run?.result.trace[Math.max(0, selected)]?.step ?? 0;
}

/**
 * The events that have happened when a fault injected at trace event `selected` lands: every event
 * of its scheduler step and before (a fault "at step N" lands after the last of them).
 */
function* throughStepOf(trace: readonly TraceEvent[], selected: number): Generator<TraceEvent> {
  const step = trace[selected]?.step ?? -1;
  for (const e of trace) {
    if (e.step > step) return;
    yield e;
  }
}

/**
 * Whether `worker` is up when a crash injected at trace event `selected` lands: started or
 * restarted and not since crashed or finished. A crash at a worker that is down then would never
 * happen.
 */
export function workerUpAt(trace: readonly TraceEvent[], selected: number, worker: string): boolean {
  let up = false;
  for (const e of throughStepOf(trace, selected)) {
    if (e.actor !== worker) continue;
    if (e.type === 'start' || e.type === 'restart') up = true;
    else if (e.type === 'finish' || e.type === 'crash') up = false;
  }
  return up;
}

/**
 * The call whose response "Lose the next response" loses, for a learner looking at trace event
 * `selected`: a call still in flight there (requested, its answer not yet back, its caller still
 * up), the earliest if several are, else the next call requested after it, of whatever kind. Null
 * when no response is left to lose. One pass: a process waits for each call's answer, so each
 * (process, provider) pair has at most one call outstanding.
 */
export function nextResponseCall(trace: readonly TraceEvent[], selected: number): TraceEvent | null {
  const outstanding = new Map<string, TraceEvent>();
  const inFlight = () => (outstanding.size ? [...outstanding.values()].reduce((a, b) => (a.i <= b.i ? a : b)) : null);
  for (const e of trace) {
    if (e.i > selected) {
      if (outstanding.size) return inFlight();
      if (e.type === 'call' && e.call && e.fault !== 'lose-request') return e;
      continue;
    }
    if (e.type === 'call' && e.call && e.fault !== 'lose-request') outstanding.set(`${e.actor}|${e.target}`, e);
    else if (e.type === 'reply' && e.target) outstanding.delete(`${e.target}|${e.actor}`);
    else if (e.type === 'timeout' && e.target) outstanding.delete(`${e.actor}|${e.target}`);
    else if (e.type === 'crash') for (const [k, c] of outstanding) if (c.actor === e.actor) outstanding.delete(k);
  }
  return inFlight();
}

/**
 * The fault that loses the response of `nextResponseCall`: counted among the calls of its kind, as
 * the engine counts them (a rerun with the fault is the same schedule up to that call).
 */
export function nextLostResponse(trace: readonly TraceEvent[], selected: number): Fault | null {
  const c = nextResponseCall(trace, selected);
  if (!c?.call) return null;
  const nth = trace.filter((e) => e.i <= c.i && e.type === 'call' && e.call === c.call).length;
  return { kind: 'lose-response', call: c.call, nth };
}

export const runAction: LabAction = {
  name: 'run',
  label: 'Run',
  keys: [' '],
  keyLabel: 'Space',
  enabled: (ctx) => is(ctx, 'ready', 'paused', 'finished'),
  perform: (ctx) => ctx.send({ type: 'RUN', code: ctx.code() }),
};

export const pauseAction: LabAction = {
  name: 'pause',
  label: 'Pause',
  keys: [' '],
  keyLabel: 'Space',
  enabled: (ctx) => is(ctx, 'running.playing'),
  perform: (ctx) => ctx.send({ type: 'PAUSE' }),
};

export const stepAction: LabAction = {
  name: 'step',
  label: 'Step',
  keys: ['ArrowRight'],
  keyLabel: '→',
  enabled: (ctx) => {
    const { run, selected } = ctx.state.context;
    // From Ready, Step starts a run paused at its first event.
    if (is(ctx, 'ready')) return true;
    // While a stepped run is being computed, a Step is saved up for when it is on screen.
    if (is(ctx, 'running.loading') && ctx.state.context.pauseAfterLoad) return true;
    if (!run || run.result.trace.length === 0) return false;
    return is(ctx, 'running.playing', 'paused') || (is(ctx, 'finished') && selected < run.result.trace.length - 1);
  },
  // The code goes along from Ready and when paused: a paused run whose code was edited since starts over.
  perform: (ctx) => ctx.send(is(ctx, 'ready', 'paused') ? { type: 'STEP', code: ctx.code() } : { type: 'STEP' }),
};

export const backAction: LabAction = {
  name: 'back',
  label: 'Back',
  keys: ['ArrowLeft'],
  keyLabel: '←',
  enabled: (ctx) => !!ctx.state.context.run && ctx.state.context.selected > 0 && is(ctx, 'running.playing', 'paused', 'finished'),
  perform: (ctx) => ctx.send({ type: 'BACK' }),
};

export const skipAction: LabAction = {
  name: 'skip',
  label: 'Skip to end',
  keys: ['End'],
  keyLabel: 'End',
  enabled: (ctx) => is(ctx, 'running.playing', 'paused'),
  perform: (ctx) => ctx.send({ type: 'SKIP' }),
};

export const resetAction: LabAction = {
  name: 'reset',
  label: 'Reset',
  keys: ['r', 'R'],
  keyLabel: 'R',
  enabled: (ctx) => !!ctx.state.context.run && is(ctx, 'running', 'paused', 'finished'),
  perform: (ctx) => ctx.send({ type: 'RESET' }),
  // After a reset the next thing is a run, not the Explore that follows Reset in the toolbar.
  focusAfter: 'run',
};

export const exploreAction: LabAction = {
  name: 'explore',
  label: 'Explore',
  keys: ['e', 'E'],
  keyLabel: 'E',
  enabled: (ctx) => is(ctx, 'ready', 'paused', 'finished'),
  perform: (ctx) => ctx.send({ type: 'EXPLORE', code: ctx.code(), runs: EXPLORE_RUNS }),
};

/** "Crash worker-1 now": kill the worker at the step being looked at, rerun the same schedule. */
export function crashAction(worker: string): LabAction {
  return {
    name: `inject-crash-${worker}`,
    label: `Crash ${worker} now`,
    keys: [],
    enabled: (ctx) =>
      atEvent(ctx) &&
      workerUpAt(ctx.state.context.run!.result.trace, ctx.state.context.selected, worker) &&
      !alreadyPlanned(ctx.state.context.run!.result.faults, { kind: 'crash', process: worker, atStep: currentStep(ctx) }),
    perform: (ctx) => ctx.send({ type: 'INJECT', code: ctx.code(), fault: { kind: 'crash', process: worker, atStep: currentStep(ctx) } }),
  };
}

export const loseResponseAction: LabAction = {
  name: 'lose-next-response',
  label: 'Lose the next response',
  keys: [],
  enabled: (ctx) => {
    if (!atEvent(ctx)) return false;
    const { run, selected } = ctx.state.context;
    const fault = nextLostResponse(run!.result.trace, selected);
    return fault !== null && !alreadyPlanned(run!.result.faults, fault);
  },
  perform: (ctx) => {
    const fault = nextLostResponse(ctx.state.context.run?.result.trace ?? [], ctx.state.context.selected);
    if (fault) ctx.send({ type: 'INJECT', code: ctx.code(), fault });
  },
};

/**
 * The message "Redeliver now" hands to a second consumer: one a consumer holds once the events of
 * the selected event's step have run (received, not yet acked, not visible again or dead-lettered),
 * the last received if several are. A duplicate delivery is of a message in flight, so with none
 * held there is nothing to redeliver at that moment. Ids differ by scenario (m1, evt_1, p1…), so
 * they are read from the trace rather than assumed.
 */
export function heldMessageAt(trace: readonly TraceEvent[], selected: number): string | null {
  const held: string[] = [];
  for (const e of throughStepOf(trace, selected)) {
    const id = (e.data as { messageId?: unknown } | undefined)?.messageId;
    if (typeof id !== 'string') continue;
    const at = held.indexOf(id);
    if (at >= 0) held.splice(at, 1);
    if (e.type === 'receive') held.push(id);
  }
  return held.at(-1) ?? null;
}

function redeliveryOf(ctx: ActionContext): string | null {
  const { run, selected } = ctx.state.context;
  return run ? heldMessageAt(run.result.trace, selected) : null;
}

/** "Redeliver now": from the step on screen, the queue hands a message in flight to a second consumer. */
export const redeliverAction: LabAction = {
  name: 'redeliver-now',
  label: 'Redeliver now',
  keys: [],
  enabled: (ctx) => {
    if (!atEvent(ctx)) return false;
    const message = redeliveryOf(ctx);
    return message !== null && !alreadyPlanned(ctx.state.context.run!.result.faults, { kind: 'duplicate-delivery', message, atStep: currentStep(ctx) });
  },
  perform: (ctx) => {
    const message = redeliveryOf(ctx);
    if (message) ctx.send({ type: 'INJECT', code: ctx.code(), fault: { kind: 'duplicate-delivery', message, atStep: currentStep(ctx) } });
  },
};

/** "Share": a link to the code, seed, fault plan and selected event on screen. */
export const shareAction: LabAction = {
  name: 'share',
  label: 'Share',
  keys: [],
  enabled: (ctx) => !!ctx.share && !is(ctx, 'running.loading'),
  perform: (ctx) => ctx.share?.(),
};

/** The finished run on screen, if any (exports wait for the verdict, so they never give it away). */
function finishedRun(ctx: ActionContext) {
  const run = ctx.state.context.run;
  return run && run.result.trace.length > 0 && is(ctx, 'finished') ? run : null;
}

/** Save `text` as a file named `filename` (no server: a blob URL and a download link). */
function downloadText(filename: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

const exportName = (r: { scenario: string; variant: string; seed: number }) => `${r.scenario}-${r.variant.replace(/[^a-z0-9]+/gi, '-')}-seed-${r.seed}`;

export const downloadTraceJsonAction: LabAction = {
  name: 'download-trace-json',
  label: 'Download trace (JSON)',
  keys: [],
  enabled: (ctx) => !!finishedRun(ctx),
  perform: (ctx) => {
    const run = finishedRun(ctx);
    if (run) downloadText(`${exportName(run.result)}.trace.json`, traceToJson(run.result, ctx.state.context.runCode ?? undefined), 'application/json');
  },
};

export const copyMermaidAction: LabAction = {
  name: 'copy-mermaid',
  label: 'Copy Mermaid diagram',
  keys: [],
  enabled: (ctx) => !!finishedRun(ctx) && !!ctx.copy,
  perform: (ctx) => {
    const run = finishedRun(ctx);
    if (run) ctx.copy?.('Mermaid diagram', traceToMermaid(run.result, ctx.scenario.actors));
  },
};

export const downloadMermaidAction: LabAction = {
  name: 'download-mermaid',
  label: 'Download Mermaid (.mmd)',
  keys: [],
  enabled: (ctx) => !!finishedRun(ctx),
  perform: (ctx) => {
    const run = finishedRun(ctx);
    if (run) downloadText(`${exportName(run.result)}.mmd`, traceToMermaid(run.result, ctx.scenario.actors), 'text/plain');
  },
};

/** Trace exports, in toolbar order. */
export const EXPORT_ACTIONS: readonly LabAction[] = [downloadTraceJsonAction, copyMermaidAction, downloadMermaidAction];

/** The playback and explore controls, in toolbar order. */
export const PLAYBACK_ACTIONS: readonly LabAction[] = [runAction, pauseAction, backAction, stepAction, skipAction, resetAction, exploreAction];

/** The fault buttons a scenario offers. */
export function faultActions(scenario: LabScenario): LabAction[] {
  const out = workersOf(scenario).map(crashAction);
  if (callKindOf(scenario)) out.push(loseResponseAction);
  if (canRedeliver(scenario)) out.push(redeliverAction);
  return out;
}

/** Every action of a scenario, by name (for tests and the keyboard handler). */
export function actionsFor(scenario: LabScenario): LabAction[] {
  return [...PLAYBACK_ACTIONS, ...faultActions(scenario), shareAction, ...EXPORT_ACTIONS];
}

/** The first enabled action bound to `key`. */
export function actionForKey(actions: readonly LabAction[], key: string, ctx: ActionContext): LabAction | undefined {
  return actions.find((a) => a.keys.includes(key) && a.enabled(ctx));
}
