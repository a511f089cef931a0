/**
 * The consumer side of the lesson: one order's receipt (and on even seeds the same customer's next order), a queue that delivers at least once, two
 * workers, and four ways for the receipt to go out twice (or never).
 */
import type { MessageSpec } from '../../engine/scheduler';
import { SLOW_VISIBILITY_TIMEOUT_MS, fourthSeedOn, handlerOf, nearBoundaryOn, secondOrderOn, slowRedeliveryOn, startsLate, workerProcess, type BuiltWorld, type CodeError } from './scenario';
import type { Env, Fault } from '../../engine/types';

const MESSAGES: MessageSpec[] = [{ id: 'm1', body: { orderId: 1042, customer: 'ada@example.com' } }];
/**
 * The same customer's next order, in the worlds of even seeds (every demonstration has an odd
 * seed): a key on the customer, or on anything but the order, then withholds order 1043's receipt.
 */
export const NEXT_MESSAGE: MessageSpec = { id: 'm2', body: { orderId: 1043, customer: 'ada@example.com' } };

/** How far from the database's clock a drifting worker's host clock runs: ahead on seeds 3, 11, 19, …, behind on 7, 15, 23, …. */
const CLOCK_DRIFT_MS = 90_000;
const driftOn = (seed: number | undefined) => (seed !== undefined && seed % 8 === 7 ? -CLOCK_DRIFT_MS : CLOCK_DRIFT_MS);

/**
 * `handler` on a host whose clock runs `aheadMs` ahead (behind when negative): the env it gets
 * reads that clock in `env.clock.now()`; the database's now() and every timer stay on the true time.
 */
function withClockAhead(handler: (msg: never, env: Env) => Promise<unknown>, aheadMs: number): (msg: never, env: Env) => Promise<unknown> {
  return (msg, env) => handler(msg, { ...env, clock: { now: () => env.clock.now() + aheadMs } });
}

/**
 * From the run's start (Monday 5 January, 09:00 UTC) to 23:59:30 UTC on Sunday 31 May: the day,
 * the ISO week and the month turn together at the next midnight.
 */
export const NEAR_MIDNIGHT_MS = (146 * 24 * 3600 + 14 * 3600 + 59 * 60 + 30) * 1000;
/** From the run's start to 03:59:30 UTC on 1 June: 23:59:30 on 31 May in New York (UTC−4 in summer). */
const NEAR_NEW_YORK_MIDNIGHT_MS = NEAR_MIDNIGHT_MS + 4 * 3_600_000;
/** From the run's start to 07:59:30 UTC on 1 June: 23:59:30 on 31 May in Anchorage (UTC−8 in summer). */
const NEAR_ANCHORAGE_MIDNIGHT_MS = NEAR_MIDNIGHT_MS + 8 * 3_600_000;

/**
 * When the workers come up on a near-midnight seed, always 30 s before Sunday 31 May ends: at
 * midnight UTC on 3, 11, 19, …, in New York on 7, 23, 39, … and in Anchorage on 15, 31, 47, ….
 * Anchorage's midnight in January is 09:00 UTC, when every other run starts, so no other seed
 * crosses its date.
 */
function nearMidnightOn(seed: number | undefined): [number, string] {
  if (seed !== undefined && seed % 16 === 15) return [NEAR_ANCHORAGE_MIDNIGHT_MS, '07:59:30 UTC on Monday 1 June (23:59:30 on Sunday 31 May in Anchorage)'];
  if (seed !== undefined && seed % 8 === 7) return [NEAR_NEW_YORK_MIDNIGHT_MS, '03:59:30 UTC on Monday 1 June (23:59:30 on Sunday 31 May in New York)'];
  return [NEAR_MIDNIGHT_MS, '23:59:30 UTC on Sunday 31 May'];
}

/** When the workers come up on an off-the-minute seed: a tenth of a second before the minute turns. */
const OFF_MINUTE_MS = 59_900;

/**
 * How long after its first delivery the queue hands a message out again on a next-morning seed
 * (`fourthSeedOn`), as usual after that: the workers were down from the crash until then. A
 * takeover 23 h later crosses midnight in nearly every time zone, inside the provider's 24 h key retention.
 */
export const NEXT_MORNING_MS = 23 * 3_600_000;

/** The messages of a run with `seed`: order 1042's, and on even seeds the customer's next order too. */
export function receiptMessages(seed: number | undefined): MessageSpec[] {
  return secondOrderOn(seed) ? [...MESSAGES, NEXT_MESSAGE] : MESSAGES;
}

/**
 * The receipt lessons' world: two workers, one message (two on even seeds), an e-mail provider that honours keys
 * unless `emailHonoursKeys: false` (the lessons whose point is the database's claim: there a key
 * alone must not be a way round it). A send gives up after 30 s, inside the solutions' 60 s lease:
 * the lease outlasts the work it protects, as lib/consumer.ts asks, so only a dead (or stuck)
 * worker is overtaken.
 */
export function receiptWorld(
  mod: Record<string, unknown>,
  options: {
    emailTimeoutMs?: number;
    emailHonoursKeys?: boolean;
    seed?: number;
    /** On seeds 3, 7, 11, …, the workers come up at 23:59:30 on Sunday 31 May: in UTC on 3, 11, 19, …, in New York on 7, 23, 39, …, in Anchorage on 15, 31, 47, …; a takeover after a crash falls on the next day, week and month. */
    nearMidnight?: boolean;
    /** On seeds 3, 7, 11, …, worker-2's host clock runs 90 s off the database's, ahead or (7, 15, …) behind (env.clock.now() reads it; now() in SQL does not). */
    skewedClock?: boolean;
    /** On seeds 3, 6, 9, …, the queue hands an unacknowledged message out again after 90 s rather than 30 s: past a 60 s lease. */
    slowRedelivery?: boolean;
    /** On seeds 5, 9, 13, …, the queue hands a message out again 23 h after its first delivery (NEXT_MORNING_MS). */
    nextMorning?: boolean;
    /** On seeds 5, 9, 13, …, the workers come up at 09:00:59.9, a tenth of a second before the minute turns: a lease to the next whole minute is that tenth. */
    offMinute?: boolean;
  } = {},
): BuiltWorld {
  const handler = handlerOf(mod, 'handleMessage');
  const codeErrors: CodeError[] = [];
  const [late, lateAt] =
    options.nearMidnight === true && nearBoundaryOn(options.seed)
      ? nearMidnightOn(options.seed)
      : options.offMinute === true && fourthSeedOn(options.seed)
        ? [OFF_MINUTE_MS, '09:00:59.9']
        : [0, ''];
  const skew = options.skewedClock === true && nearBoundaryOn(options.seed);
  const nextMorning = options.nextMorning === true && fourthSeedOn(options.seed);
  const handlerOn = (id: string) => (skew && id === 'worker-2' ? withClockAhead(handler, driftOn(options.seed)) : handler);
  const worker = (id: string) =>
    late ? startsLate(workerProcess(id, handlerOn(id), codeErrors), late, `${id} comes up at ${lateAt}`) : workerProcess(id, handlerOn(id), codeErrors);
  return {
    spec: {
      processes: [worker('worker-1'), worker('worker-2')],
      messages: receiptMessages(options.seed),
      ...(nextMorning ? { firstVisibilityTimeoutMs: NEXT_MORNING_MS } : {}),
      visibilityTimeoutMs: options.slowRedelivery === true && slowRedeliveryOn(options.seed) ? SLOW_VISIBILITY_TIMEOUT_MS : 30_000,
      maxReceives: 10,
      providers: { timeoutMs: options.emailTimeoutMs ?? 30_000, emailHonoursKeys: options.emailHonoursKeys ?? true },
      horizonMs: 3_600_000 + late + (nextMorning ? NEXT_MORNING_MS : 0),
    },
    observed: {},
    codeErrors,
  };
}

export const crashBeforeAck = (p: string): Fault => ({ kind: 'crash', process: p, before: 'queue.ack' });
export const crashAfterDb = (p: string, nth: number): Fault => ({ kind: 'crash', process: p, after: 'db', nth });
export const crashAfterSend = (p: string): Fault => ({ kind: 'crash', process: p, after: 'email.send' });
export const duplicate: Fault = { kind: 'duplicate-delivery', message: 'm1' };

export const TABLES = ['operations'];
export const ACTORS = ['queue', 'worker-1', 'worker-2', 'postgres', 'email'];

