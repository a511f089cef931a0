/** The lab controller: when the verdict shows, and what Step does before a run. */
import { expect, test } from 'vitest';
import { createActor, fromCallback, fromPromise, type SnapshotFrom } from 'xstate';
import { labMachine, type RunInput } from '../components/lab/controller/lab-machine';
import type { RunAnswer } from '../components/db/worker-client';
import type { LabRun } from '../simulations/run/lab-run';
import type { ExploreResult } from '../simulations/run/run';

const EVENTS = 16;

/** The machine reads only the trace's length from a run, so a run of blank events will do. */
function fakeAnswer(faults: readonly unknown[] = []): RunAnswer {
  const run = { result: { seed: 1, faults: [...faults], choices: [], trace: Array.from({ length: EVENTS }, (_, i) => ({ i })) } } as unknown as LabRun;
  return { run, unhandled: [] } as unknown as RunAnswer;
}

function start() {
  const inputs: RunInput[] = [];
  const machine = labMachine.provide({
    actors: {
      runLab: fromPromise<RunAnswer, RunInput>(async ({ input }) => {
        inputs.push(input);
        return fakeAnswer(input.faults);
      }),
    },
  });
  const actor = createActor(machine, { input: { seed: 1, demoFaults: [] } });
  actor.start();
  actor.send({ type: 'DB_READY' });
  return { actor, inputs };
}

async function settle(actor: ReturnType<typeof start>['actor'], done: (s: SnapshotFrom<typeof labMachine>) => boolean) {
  for (let i = 0; i < 50 && !done(actor.getSnapshot()); i++) await Promise.resolve();
  return actor.getSnapshot();
}

test('stopping a run at its last event (a shared step) reveals the verdict, as finishing playback does', async () => {
  const { actor } = start();
  actor.send({ type: 'RUN', code: 'x' });
  let s = await settle(actor, (s) => s.matches({ running: 'playing' }));
  expect(s.context.revealed).toBe(false);
  actor.send({ type: 'SEEK', index: EVENTS - 1 });
  s = actor.getSnapshot();
  expect(s.value).toBe('finished');
  expect(s.context.revealed).toBe(true);
  expect(s.context.selected).toBe(EVENTS - 1);
});

test('seeking while paused onto the last event, or stepping onto it, reveals the verdict', async () => {
  const { actor } = start();
  actor.send({ type: 'RUN', code: 'x' });
  await settle(actor, (s) => s.matches({ running: 'playing' }));
  actor.send({ type: 'PAUSE' });
  actor.send({ type: 'SEEK', index: 3 });
  expect(actor.getSnapshot().value).toBe('paused');
  expect(actor.getSnapshot().context.revealed).toBe(false);
  actor.send({ type: 'SEEK', index: EVENTS - 1 });
  expect(actor.getSnapshot().value).toBe('finished');
  expect(actor.getSnapshot().context.revealed).toBe(true);

  const second = start();
  second.actor.send({ type: 'RUN', code: 'x' });
  await settle(second.actor, (s) => s.matches({ running: 'playing' }));
  second.actor.send({ type: 'SEEK', index: EVENTS - 2 });
  expect(second.actor.getSnapshot().context.revealed).toBe(false);
  second.actor.send({ type: 'STEP' });
  expect(second.actor.getSnapshot().value).toBe('finished');
  expect(second.actor.getSnapshot().context.revealed).toBe(true);
});

test('Step from Ready runs the code and pauses at the first event; Run still plays', async () => {
  const { actor, inputs } = start();
  actor.send({ type: 'STEP', code: 'mine' });
  const s = await settle(actor, (s) => s.matches('paused'));
  expect(s.value).toBe('paused');
  expect(s.context.visibleUpTo).toBe(0);
  expect(s.context.selected).toBe(0);
  expect(s.context.revealed).toBe(false);
  expect(inputs).toMatchObject([{ code: 'mine', seed: 1 }]);
  actor.send({ type: 'STEP' });
  expect(actor.getSnapshot().context.visibleUpTo).toBe(1);

  // Step without code (a stale key press) does nothing in Ready.
  const other = start();
  other.actor.send({ type: 'STEP' });
  expect(other.actor.getSnapshot().value).toBe('ready');
  // Run keeps playing rather than pausing.
  other.actor.send({ type: 'RUN', code: 'x' });
  expect((await settle(other.actor, (s) => s.matches({ running: 'playing' }))).matches({ running: 'playing' })).toBe(true);
});

test('a cancelled exploration keeps how many schedules were asked for, so the panel can say it was cut short', async () => {
  const machine = labMachine.provide({
    actors: {
      explore: fromCallback<{ type: 'CANCEL' }, { code: string; runs: number }>(({ sendBack, receive }) => {
        sendBack({ type: 'EXPLORE_PROGRESS', done: 88, total: 200, schedulesPerSecond: 900 });
        receive(() => sendBack({ type: 'EXPLORE_DONE', result: { runs: 88, violations: 0 } as unknown as ExploreResult }));
      }),
    },
  });
  const actor = createActor(machine, { input: { seed: 1, demoFaults: [] } });
  actor.start();
  actor.send({ type: 'DB_READY' });
  actor.send({ type: 'EXPLORE', code: 'x', runs: 200 });
  expect(actor.getSnapshot().context.explorer).toMatchObject({ status: 'running', done: 88, total: 200 });
  actor.send({ type: 'CANCEL_EXPLORE' });
  expect(actor.getSnapshot().context.explorer).toMatchObject({ status: 'done', requested: 200, result: { runs: 88 } });
});

test('an injection reruns from the event on screen: it plays on, or with hold (presenter mode) stays there', async () => {
  for (const hold of [undefined, true]) {
    const { actor, inputs } = start();
    actor.send({ type: 'STEP', code: 'x' });
    await settle(actor, (s) => s.matches('paused'));
    actor.send({ type: 'SEEK', index: 5 });
    actor.send({ type: 'INJECT', code: 'x', fault: { kind: 'crash', process: 'worker-1', atStep: 3 }, hold });
    const s = await settle(actor, (s) => !s.matches({ running: 'loading' }));
    expect(inputs.at(-1)?.faults).toEqual([{ kind: 'crash', process: 'worker-1', atStep: 3 }]);
    expect(s.context.selected).toBe(5);
    expect(s.matches(hold ? 'paused' : { running: 'playing' })).toBe(true);
    // CLEAR_FAULTS empties what was injected (presenter mode's Reset sends it after RESET).
    expect(s.context.injected).toHaveLength(1);
    actor.send({ type: 'RESET' });
    actor.send({ type: 'CLEAR_FAULTS' });
    expect(actor.getSnapshot().context.injected).toEqual([]);
  }
});

test('the same fault injected twice (a second click at the same event) is planned once', async () => {
  const { actor, inputs } = start();
  actor.send({ type: 'STEP', code: 'x' });
  await settle(actor, (s) => s.matches('paused'));
  const crash = { kind: 'crash' as const, process: 'worker-1', atStep: 3 };
  actor.send({ type: 'INJECT', code: 'x', fault: crash, hold: true });
  await settle(actor, (s) => s.matches('paused') && s.context.run?.result.faults.length === 1);
  const runs = inputs.length;
  actor.send({ type: 'INJECT', code: 'x', fault: { atStep: 3, process: 'worker-1', kind: 'crash' }, hold: true });
  const s = await settle(actor, (s) => !s.matches({ running: 'loading' }));
  expect(inputs).toHaveLength(runs);
  expect(s.context.injected).toEqual([crash]);
  // Another fault still goes in.
  actor.send({ type: 'INJECT', code: 'x', fault: { ...crash, atStep: 4 }, hold: true });
  await settle(actor, (s) => s.matches('paused') && s.context.run?.result.faults.length === 2);
  expect(actor.getSnapshot().context.injected).toHaveLength(2);
});

test('a paused run continues only while the code is the same: after an edit or another tab, Run and Step start the code on screen afresh', async () => {
  const { actor, inputs } = start();
  actor.send({ type: 'STEP', code: 'starter' });
  await settle(actor, (s) => s.matches('paused'));
  actor.send({ type: 'STEP', code: 'starter' });
  actor.send({ type: 'STEP', code: 'starter' });
  expect(actor.getSnapshot().context.selected).toBe(2);
  const paused = actor.getSnapshot().context.run;

  // Same code: Run continues the paused run where it stands, without a new run.
  actor.send({ type: 'RUN', code: 'starter' });
  expect(actor.getSnapshot().matches({ running: 'playing' })).toBe(true);
  expect(actor.getSnapshot().context.run).toBe(paused);
  expect(inputs).toHaveLength(1);
  actor.send({ type: 'PAUSE' });

  // The learner switched to the solution: Run runs it from the start.
  actor.send({ type: 'RUN', code: 'solution' });
  let s = await settle(actor, (s) => s.matches({ running: 'playing' }) && s.context.run !== paused);
  expect(inputs.map((i) => i.code)).toEqual(['starter', 'solution']);
  expect(s.context.run).not.toBe(paused);
  expect(s.context.runCode).toBe('solution');
  expect(s.context.selected).toBe(0);

  // An edit while paused, then Step: a fresh run of the edited code, held at its first event.
  actor.send({ type: 'PAUSE' });
  actor.send({ type: 'STEP', code: 'solution, edited' });
  s = await settle(actor, (s) => s.matches('paused') && s.context.runCode === 'solution, edited');
  expect(inputs.map((i) => i.code)).toEqual(['starter', 'solution', 'solution, edited']);
  expect(s.context.selected).toBe(0);
  expect(s.context.revealed).toBe(false);

  // A fault injected into the run on screen reruns that run's code, whatever the editor holds now.
  actor.send({ type: 'INJECT', fault: { kind: 'crash', process: 'worker-1', atStep: 3 }, code: 'edited again', hold: true });
  s = await settle(actor, (s) => s.matches('paused') && inputs.length === 4);
  expect(inputs[3]).toMatchObject({ code: 'solution, edited', faults: [{ kind: 'crash', process: 'worker-1', atStep: 3 }] });
  expect(s.context.runCode).toBe('solution, edited');
});

test('steps pressed while a stepped run is still being computed are kept: → → → from Ready lands on the third event', async () => {
  const { actor } = start();
  actor.send({ type: 'STEP', code: 'mine' });
  // The worker is still computing the run: the next two presses wait for it, and none is lost.
  actor.send({ type: 'STEP' });
  actor.send({ type: 'STEP' });
  const s = await settle(actor, (s) => s.matches('paused'));
  expect(s.context.visibleUpTo).toBe(2);
  expect(s.context.selected).toBe(2);
  expect(s.context.stepsAhead).toBe(0);

  // More presses than events: the run ends, and the verdict shows.
  const long = start();
  long.actor.send({ type: 'STEP', code: 'mine' });
  for (let i = 0; i < EVENTS + 3; i++) long.actor.send({ type: 'STEP' });
  const end = await settle(long.actor, (s) => s.matches('finished'));
  expect(end.value).toBe('finished');
  expect(end.context.revealed).toBe(true);

  // A run started with Run plays; a Step meanwhile is not saved up for later.
  const played = start();
  played.actor.send({ type: 'RUN', code: 'mine' });
  played.actor.send({ type: 'STEP' });
  const p = await settle(played.actor, (s) => s.matches({ running: 'playing' }));
  expect(p.context.stepsAhead).toBe(0);
  expect(p.context.visibleUpTo).toBe(0);
});

/** Run `code` (from Ready or Finished) and skip to its end. */
async function runToEnd(actor: ReturnType<typeof start>['actor'], code: string) {
  actor.send({ type: 'RUN', code });
  await settle(actor, (s) => s.matches({ running: 'playing' }));
  actor.send({ type: 'SKIP' });
  expect(actor.getSnapshot().value).toBe('finished');
}

test("a replayed failure, which has no recorded choices, runs with the choices its seed draws, as the explored schedule did", async () => {
  const { actor, inputs } = start();
  const crash = { kind: 'crash', process: 'worker-1', before: 'queue.ack' } as never;
  actor.send({ type: 'REPLAY', code: 'mine', counterexample: { seed: 2, faults: [crash] } });
  await settle(actor, (s) => s.matches({ running: 'playing' }));
  actor.send({ type: 'RESET' });
  await runToEnd(actor, 'mine');
  expect(inputs.map((i) => [i.seed, i.faults, i.choices])).toEqual([
    [2, [crash], undefined],
    [2, [crash], undefined],
  ]);
});

test('a replayed counterexample becomes the plan: Reset, then Run or Step, shows it again; edited code runs by the seed', async () => {
  const { actor, inputs } = start();
  const crash = { kind: 'crash', process: 'worker-1', at: { call: 'email.send', nth: 1, when: 'after' } } as never;
  actor.send({ type: 'REPLAY', code: 'mine', counterexample: { seed: 3, faults: [crash], choices: [1, 0, 2], steps: 15 } as never });
  await settle(actor, (s) => s.matches({ running: 'playing' }));
  actor.send({ type: 'RESET' });
  expect(actor.getSnapshot().value).toBe('ready');
  expect(actor.getSnapshot().context).toMatchObject({ seed: 3, demoFaults: [crash], injected: [] });
  actor.send({ type: 'STEP', code: 'mine' });
  await settle(actor, (s) => s.matches('paused'));
  expect(actor.getSnapshot().value).toBe('paused');
  actor.send({ type: 'RESET' });
  await runToEnd(actor, 'mine');
  // Replay, Step after Reset, Run after Reset: the same schedule each time.
  expect(inputs.map((i) => [i.seed, i.faults, i.choices])).toEqual([
    [3, [crash], [1, 0, 2]],
    [3, [crash], [1, 0, 2]],
    [3, [crash], [1, 0, 2]],
  ]);
  // Other code: the counterexample's seed and faults, but the scheduler by the seed (the choices were made for the replayed code).
  await runToEnd(actor, 'fixed');
  expect(inputs.at(-1)).toMatchObject({ code: 'fixed', seed: 3, faults: [crash], choices: undefined });
  // The same seed typed again keeps the choices; another seed drops them.
  actor.send({ type: 'SET_SEED', seed: 3 });
  await runToEnd(actor, 'mine');
  expect(inputs.at(-1)!.choices).toEqual([1, 0, 2]);
  actor.send({ type: 'SET_SEED', seed: 4 });
  await runToEnd(actor, 'mine');
  expect(inputs.at(-1)).toMatchObject({ seed: 4, faults: [crash], choices: undefined });
  expect(inputs).toHaveLength(6);
});

test("a share link's choices steer the runs of the code its first run used", async () => {
  const { actor, inputs } = start();
  actor.send({ type: 'SET_PLAN', seed: 9, faults: [], choices: [2, 2] });
  for (const code of ['shared', 'shared', 'edited', 'shared']) await runToEnd(actor, code);
  expect(inputs.map((i) => [i.code, i.choices])).toEqual([
    ['shared', [2, 2]],
    ['shared', [2, 2]],
    ['edited', undefined],
    ['shared', [2, 2]],
  ]);
});
