/**
 * The idempotency-key contract of a payment provider, as Stripe documents it, in one place:
 * - the same key again returns the original result, and nothing new is created;
 * - the same key with different parameters is refused (`idempotency_error`);
 * - keys are kept for a retention window (at least 24 hours); a replay after that is a new request.
 * A provider simulator enforces it; the lesson's explanations cite it.
 *
 * Two parts of Stripe's contract this store leaves out, because the simulated charges never fail
 * and a simulated request is applied in one step:
 * - Stripe saves the first result whatever it was, a decline or a 500 included, and replays it for
 *   the whole window. A key that names the order alone (`opKey('charge', { orderId })`) would then
 *   replay a decline to a retry with a new card (and refuse the new card's parameters): a real
 *   checkout keys each payment attempt, e.g. an attempt id stored with the order.
 * - A request whose key belongs to a request still being processed is refused with a conflict and
 *   nothing saved; retrying it a moment later with the same key is the answer.
 */
import { canonical } from './op-key';

/** How long a provider remembers a key, by default. */
export const DEFAULT_RETENTION_HOURS = 24;

/** What the provider does with a request that carries a key. */
export type KeyDecision<R> =
  | { kind: 'new'; /** Set when the key was used before, at this time, and has since been forgotten. */ forgottenSince?: number }
  | { kind: 'replay'; result: R }
  | { kind: 'mismatch'; message: string };

interface Entry<R> {
  params: string;
  result: R;
  atMs: number;
}

/** A provider's memory of idempotency keys. Time is passed in, so it runs on any clock. */
export class IdempotencyKeyStore<R> {
  private readonly entries = new Map<string, Entry<R>>();

  /** @param retentionHours how long a key is remembered after its first use. */
  constructor(readonly retentionHours: number = DEFAULT_RETENTION_HOURS) {}

  /** Decide what a request with `key` and `params`, arriving at `nowMs`, gets. */
  decide(key: string, params: unknown, nowMs: number): KeyDecision<R> {
    const entry = this.entries.get(key);
    if (!entry) return { kind: 'new' };
    if (nowMs - entry.atMs >= this.retentionHours * 3_600_000) return { kind: 'new', forgottenSince: entry.atMs };
    if (entry.params !== canonical(params)) {
      return {
        kind: 'mismatch',
        message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
      };
    }
    return { kind: 'replay', result: entry.result };
  }

  /** Remember the result of a new request under `key`. */
  remember(key: string, params: unknown, result: R, nowMs: number): void {
    this.entries.set(key, { params: canonical(params), result, atMs: nowMs });
  }
}
