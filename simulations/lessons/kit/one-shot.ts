/**
 * Pieces the later scenarios share: a process that calls the learner's entry function once and
 * records what it returned or threw (never letting learner errors escape as engine errors), and
 * invariants over the provider ledger for a fixed list of orders. Checkers only observe.
 */
import type { ProcessSpec } from '../../engine/scheduler';
import { caughtThrow, codeErrorOf, type CodeError, type Invariant } from './scenario';
import { formatSimMoment } from '../../engine/sim-time';
import type { Env } from '../../engine/types';

/** What a one-shot process saw: the value the learner's function returned, or its error. */
export type Returned = { value: unknown } | { error: string };

/**
 * A process that waits `startAfterMs`, says why it runs, calls `fn` and records the outcome under
 * `observed[id]`. With `attempts` > 1 a failed call is tried again after `retryDelayMs`, as a queue
 * redelivers an event until its handler succeeds. Errors thrown by learner code are recorded with their line.
 */
export function oneShot(
  id: string,
  fn: (env: Env) => Promise<unknown>,
  observed: Record<string, unknown>,
  codeErrors: CodeError[],
  options: { startAfterMs?: number; why?: string; attempts?: number; retryDelayMs?: number } = {},
): ProcessSpec {
  const attempts = options.attempts ?? 1;
  return {
    id,
    async main(env) {
      if (options.startAfterMs) await env.sleep(options.startAfterMs);
      if (options.why) env.log(options.why);
      for (let attempt = 1; attempt <= attempts; attempt++) {
        try {
          const value = await fn(env);
          observed[id] = { value } satisfies Returned;
          return;
        } catch (err) {
          const { said } = caughtThrow(err);
          const recorded = codeErrorOf(id, err);
          if (recorded) codeErrors.push(recorded);
          observed[id] = { error: said } satisfies Returned;
          if (attempt === attempts) {
            env.log(`stops: ${said}`);
          } else {
            env.log(`failed (${said}); tried again in ${humanDuration(options.retryDelayMs ?? 30_000)}`);
            await env.sleep(options.retryDelayMs ?? 30_000);
          }
        }
      }
    },
  };
}

/** "6.3 s", "2 h 30 min", "1 day 2 h": a simulated duration a learner can read. */
export function humanDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  // Rounded to the minute as a whole, as the engine's sleepText: 14 h 59 min 40 s is "15 h", not "14 h 60 min".
  const total = Math.round(ms / 60_000);
  const h = Math.floor(total / 60);
  const min = total % 60;
  if (h >= 24) return `${Math.floor(h / 24)} day${h >= 48 ? 's' : ''}${h % 24 ? ` ${h % 24} h` : ''}`;
  return h ? `${h} h${min ? ` ${min} min` : ''}` : `${min} min`;
}

/** No order in `orderIds` is charged more than once. */
export function noDoubleCharge(orderIds: readonly number[]): Invariant {
  return {
    id: 'no-double-charge',
    title: orderIds.length > 1 ? 'No order is charged twice' : 'The order is charged at most once',
    check({ outcome }) {
      for (const orderId of orderIds) {
        const charges = outcome.ledger.charges.filter((c) => c.orderId === orderId);
        if (charges.length > 1) {
          return {
            held: false,
            detail: `order ${orderId} was charged ${charges.length} times: ${charges.map((c) => `${c.chargeId} by ${c.by} at ${formatSimMoment(c.atMs)}, ${c.key ? `key ${c.key.slice(0, 8)}…` : 'no key'}`).join(', ')}`,
            step: charges[1]!.step,
          };
        }
      }
      const n = outcome.ledger.charges.length;
      return { held: true, detail: `${n} charge${n === 1 ? '' : 's'}, none twice for one order` };
    },
  };
}

/** No order in `orderIds` gets more than one e-mail with `template` (receipts: no template). */
export function atMostOneEmail(orderIds: readonly number[], id: string, title: string, template?: string): Invariant {
  return {
    id,
    title,
    check({ outcome }) {
      for (const orderId of orderIds) {
        const sent = outcome.ledger.emails.filter((e) => e.orderId === orderId && e.template === template);
        if (sent.length > 1) {
          return {
            held: false,
            detail: `order ${orderId} got ${sent.length} e-mails: ${sent.map((e) => `${e.emailId} by ${e.by} at ${formatSimMoment(e.atMs)}`).join(', ')}`,
            step: sent[1]!.step,
          };
        }
      }
      return { held: true, detail: 'no order got the same e-mail twice' };
    },
  };
}
