/**
 * The database worker's busy spells (./worker-main.ts serves runs, explorations and warm-ups in
 * them). While one lasts, a heartbeat goes to the page every 250 ms from a timer task of its own,
 * which only runs when the event loop turns: the page's watchdog reads silence as a stuck loop.
 *
 * Learner code that holds the worker for a second without yielding is stopped before that, by the
 * loop guard (simulations/learner/loop-guard.ts), well before the page's watchdog (2 s of silence)
 * would end the worker and its database; a heartbeat as it trips keeps that watchdog from ending
 * it while the run winds down, and the request is answered 'stuck' instead of its result. Code
 * stuck in one native call never reaches the guard: the watchdog still ends it.
 */
import { hostTurn, setLoopBudget, stuckPending, takeStuck } from '@/simulations/learner/loop-guard';
import type { StuckMessage, WorkerResponse } from './protocol';
import { hostClock } from './sandbox';

/** The answers that end a request; one given while the loop guard had stopped the learner's code becomes 'stuck'. */
const ANSWERS = new Set<WorkerResponse['type']>(['run-result', 'explore-result', 'explore-seeds-result', 'error']);

export interface BusySpells {
  begin(): void;
  end(): void;
  /** The 'stuck' answer to request `id` when the loop guard stopped its learner code (taking the trip), else null. */
  stuckInstead(id: number): StuckMessage | null;
  /** `message`, or the 'stuck' answer instead when it ends a request whose learner code the loop guard stopped. */
  answer(message: WorkerResponse): WorkerResponse;
  /** Whether the loop guard has stopped the learner's code in this spell (an exploration ends there). */
  stuck(): boolean;
}

/** Busy spells whose heartbeats go out through `post`; sets the loop guard's budget (once per worker). */
export function busySpells(post: (message: WorkerResponse) => void): BusySpells {
  let busy = 0;
  let heartbeat: ReturnType<typeof hostClock.setInterval> | null = null;
  /** When this worker's event loop last turned while busy: learner code has held it since. */
  let lastTurn = 0;
  const turned = () => {
    lastTurn = hostClock.now();
    hostTurn();
  };
  setLoopBudget({
    heldMs: () => hostClock.now() - lastTurn,
    limitMs: 1_000,
    minCalls: 100_000,
    onTrip: () => post({ type: 'heartbeat' }),
  });
  const stuckInstead = (id: number): StuckMessage | null => {
    const heldMs = takeStuck();
    return heldMs === null ? null : { type: 'stuck', id, heldMs: Math.round(heldMs) };
  };
  return {
    begin() {
      if (busy++ > 0) return;
      turned();
      takeStuck();
      heartbeat = hostClock.setInterval(() => {
        turned();
        post({ type: 'heartbeat' });
      }, 250);
    },
    end() {
      if (--busy === 0 && heartbeat !== null) {
        hostClock.clearInterval(heartbeat);
        heartbeat = null;
      }
    },
    stuckInstead,
    answer(message) {
      const id = 'id' in message ? message.id : undefined;
      if (id === undefined || !ANSWERS.has(message.type)) return message;
      return stuckInstead(id) ?? message;
    },
    stuck: stuckPending,
  };
}
