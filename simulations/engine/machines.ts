/**
 * The infrastructure's lifecycles as XState v5 machines, run on the virtual clock.
 *
 * messageMachine — one queued message, at-least-once: `ready → inFlight → acked`, and back to
 * `ready` when the visibility timeout passes without an ack (a redelivery). After `maxReceives`
 * deliveries it goes to `deadLettered` instead.
 * workerMachine — one worker's life: `idle → receiving → handling → acking → idle`; `CRASH` from any
 * of them leads to `crashed`, and after `restartDelayMs` to `restarting`, where the engine starts a
 * new incarnation of the process.
 * Machines emit events (`redelivered`, `deadLettered`, `restart`) that the engine listens to with
 * `actor.on`, so they stay static and are never re-created per run.
 */
import { assign, emit, setup } from 'xstate';

export interface MessageContext {
  id: string;
  body: unknown;
  deliveries: number;
  visibilityTimeoutMs: number;
  /** How long the first delivery stays invisible, when that differs (see WorldSpec). */
  firstVisibilityTimeoutMs?: number;
  maxReceives: number;
}

export type MessageEvent = { type: 'RECEIVE' } | { type: 'ACK' };

export const messageMachine = setup({
  types: {
    context: {} as MessageContext,
    events: {} as MessageEvent,
    /** `deliveries`: how many times it was handed over before (a copy that outlived its ack); 0 for a new message. */
    input: {} as { id: string; body: unknown; visibilityTimeoutMs: number; firstVisibilityTimeoutMs?: number; maxReceives: number; deliveries?: number },
    emitted: {} as { type: 'redelivered'; deliveries: number } | { type: 'deadLettered'; deliveries: number },
  },
  delays: {
    visibility: ({ context }) => (context.deliveries === 1 && context.firstVisibilityTimeoutMs !== undefined ? context.firstVisibilityTimeoutMs : context.visibilityTimeoutMs),
  },
  guards: {
    exhausted: ({ context }) => context.deliveries >= context.maxReceives,
  },
  actions: {
    redelivered: emit(({ context }) => ({ type: 'redelivered' as const, deliveries: context.deliveries })),
    deadLettered: emit(({ context }) => ({ type: 'deadLettered' as const, deliveries: context.deliveries })),
  },
}).createMachine({
  id: 'message',
  context: ({ input }) => ({ ...input, deliveries: input.deliveries ?? 0 }),
  initial: 'ready',
  states: {
    ready: {
      on: {
        RECEIVE: { target: 'inFlight', actions: assign({ deliveries: ({ context }) => context.deliveries + 1 }) },
        ACK: 'acked',
      },
    },
    inFlight: {
      after: {
        visibility: [
          { guard: 'exhausted', target: 'deadLettered', actions: 'deadLettered' },
          { target: 'ready', actions: 'redelivered' },
        ],
      },
      on: {
        ACK: 'acked',
        // A duplicate delivery while in flight: a second consumer gets it; the timer restarts.
        RECEIVE: { target: 'inFlight', reenter: true, actions: assign({ deliveries: ({ context }) => context.deliveries + 1 }) },
      },
    },
    acked: { type: 'final' },
    deadLettered: { type: 'final' },
  },
});

export type WorkerEvent =
  | { type: 'RECEIVE' }
  | { type: 'HANDLE' }
  | { type: 'ACK' }
  | { type: 'IDLE' }
  | { type: 'CRASH' }
  | { type: 'STOP' };

export const workerMachine = setup({
  types: {
    context: {} as { restarts: number; maxRestarts: number; restartDelayMs: number },
    events: {} as WorkerEvent,
    input: {} as { maxRestarts: number; restartDelayMs: number },
    emitted: {} as { type: 'restart' },
  },
  delays: {
    restartDelay: ({ context }) => context.restartDelayMs,
  },
  guards: {
    mayRestart: ({ context }) => context.restarts < context.maxRestarts,
  },
  actions: {
    restart: emit({ type: 'restart' as const }),
  },
}).createMachine({
  id: 'worker',
  context: ({ input }) => ({ ...input, restarts: 0 }),
  initial: 'idle',
  on: {
    CRASH: '.crashed',
    STOP: '.stopped',
  },
  states: {
    idle: { on: { RECEIVE: 'receiving', HANDLE: 'handling', ACK: 'acking' } },
    receiving: { on: { HANDLE: 'handling', IDLE: 'idle', RECEIVE: 'receiving', ACK: 'acking' } },
    handling: { on: { ACK: 'acking', IDLE: 'idle', RECEIVE: 'receiving', HANDLE: 'handling' } },
    acking: { on: { IDLE: 'idle', RECEIVE: 'receiving', HANDLE: 'handling' } },
    crashed: {
      after: {
        restartDelay: {
          guard: 'mayRestart',
          target: 'idle',
          actions: [assign({ restarts: ({ context }) => context.restarts + 1 }), 'restart'],
        },
      },
    },
    stopped: { type: 'final' },
  },
});
