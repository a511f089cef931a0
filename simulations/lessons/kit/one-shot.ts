/**
 * Pieces the later scenarios share: a process that calls the learner's entry function once and
 * records what it returned or threw (never letting learner errors escape as engine errors), and
 * invariants over the provider ledger for a fixed list of orders. Checkers only observe.
 */
import type { ProcessSpec } from '../../engine/scheduler';
import { caughtThrow, codeErrorOf, type CodeError, type Invariant } from './scenario';
import { formatSimMoment } from '../../engine/sim-time';
import type { Env, TraceEvent } from '../../engine/types';

/** What a one-shot process saw: the value the learner's function returned, or its error. */
export type Returned = { value: unknown } | { error: string };

/**
 * A process that waits `startAfterMs`, says why it runs, calls `fn` and records the outcome under
 * `observed[id]`. With `attempts` > 1 a failed call is tried again after `retryDelayMs`, as a queue
 * redelivers an event until its handler succeeds. With `earlier`, the process also calls `fn` once
 * at that moment (from the run's start), recorded the same way, before waiting for its own start.
 * Errors thrown by learner code are recorded with their line.
 */
export function oneShot(
  id: string,
  fn: (env: Env) => Promise<unknown>,
  observed: Record<string, unknown>,
  codeErrors: CodeError[],
  options: { startAfterMs?: number; why?: string; attempts?: number; retryDelayMs?: number; earlier?: { atMs: number; why: string } } = {},
): ProcessSpec {
  const attempts = options.attempts ?? 1;
  async function call(env: Env) {
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
  }
  return {
    id,
    async main(env) {
      let waited = 0;
      if (options.earlier) {
        const started = env.clock.now();
        if (options.earlier.atMs) await env.sleep(options.earlier.atMs);
        env.log(options.earlier.why);
        await call(env);
        waited = env.clock.now() - started;
      }
      const wait = (options.startAfterMs ?? 0) - waited;
      if (wait > 0) await env.sleep(wait);
      if (options.why) env.log(options.why);
      await call(env);
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

/** A provider effect as the ledger keeps it: the call's trace index, its key and its caller. */
interface Effect {
  step: number;
  key?: string;
  by: string;
}

/**
 * Whether `second` repeats `first` across the one gap no key closes: the process that made `first`
 * crashed before it could record it, either with the call still unanswered, or answered with the
 * statement that would record it already asked for and not yet run (a statement of its own left
 * unrun at the crash) and no other call made since. `second` used the same provider key, so the
 * code derives its key from the operation, and no statement of the first process carrying that key
 * ran after the call. The lessons say this gap needs reconciliation with the provider and keep
 * their fault menus off it, but a job that runs its operations side by side reaches it through
 * faults aimed elsewhere. Returns the crash's trace index, or null when the repeat is a plain bug:
 * another key, a recording statement that ran, or a crash after the process had gone on to other
 * work (a claim, a call) instead of recording the answer — as a job that marks its charges done
 * only after their receipts, or at its end, does.
 */
export function crashedBeforeComplete(trace: readonly TraceEvent[], first: Effect, second: Effect): number | null {
  const key = first.key;
  if (!key || second.key !== key) return null;
  const crash = trace.find((e) => e.i > first.step && e.actor === first.by && e.type === 'crash');
  if (!crash || crash.i > second.step) return null;
  const carriesKey = (e: TraceEvent) => e.type === 'db' && Array.isArray((e.data as { params?: unknown } | undefined)?.params) && (e.data as { params: unknown[] }).params.includes(key);
  const keyOf = (call: TraceEvent | undefined) => (call?.data as { options?: { idempotencyKey?: unknown } } | undefined)?.options?.idempotencyKey;
  // Calls under the key still waiting for their answer, where the last answer came, and the
  // process's last call of any kind.
  let unanswered = 1;
  let lastAnswer = first.step;
  let lastCall = first.step;
  for (let i = first.step + 1; i < crash.i; i++) {
    const e = trace[i]!;
    if (e.actor === first.by && carriesKey(e)) return null;
    if (e.type === 'call' && e.actor === first.by) {
      lastCall = i;
      if (keyOf(e) === key) unanswered++;
    }
    const call = answeredCall(trace, e);
    if (call && keyOf(call) === key && call.actor === first.by) {
      unanswered--;
      lastAnswer = i;
    }
  }
  if (unanswered > 0) return crash.i;
  const unrun = (crash.data as { unrun?: unknown } | undefined)?.unrun;
  if (!Array.isArray(unrun) || unrun.length === 0) return null;
  return lastCall > lastAnswer ? null : crash.i;
}

/** The call event a reply or a timeout answers (`data.answers`), or undefined for any other event. */
export function answeredCall(trace: readonly TraceEvent[], e: TraceEvent): TraceEvent | undefined {
  if (e.type !== 'reply' && e.type !== 'timeout') return undefined;
  const answers = (e.data as { answers?: unknown } | undefined)?.answers;
  return typeof answers === 'number' ? trace[answers] : undefined;
}

/** The first repeat among `effects` (in ledger order) not across the gap of {@link crashedBeforeComplete}, with an earlier effect it repeats; and how many were across it. */
export function repeats<T extends Effect>(trace: readonly TraceEvent[], effects: readonly T[]): { bug?: [T, T]; excused: number } {
  let excused = 0;
  for (let j = 1; j < effects.length; j++) {
    const second = effects[j]!;
    const plain = effects.slice(0, j).find((first) => crashedBeforeComplete(trace, first, second) === null);
    if (plain) return { bug: [plain, second], excused };
    excused++;
  }
  return { excused };
}

/** What a broken invariant adds when every repeat it saw crossed the gap. */
export const GAP_NOTE =
  'each repeat came after a crash between the call and the statement recording it, taken over under the same key by a provider that no longer knew it: a gap no key closes (only asking the provider what it did can), so Explore does not count it against the code';

/** No order in `orderIds` is charged more than once; repeats across the gap of {@link crashedBeforeComplete} break it `beyondKeys`. */
export function noDoubleCharge(orderIds: readonly number[]): Invariant {
  return {
    id: 'no-double-charge',
    title: orderIds.length > 1 ? 'No order is charged twice' : 'The order is charged at most once',
    check({ outcome }) {
      let gap: { detail: string; step: number } | undefined;
      for (const orderId of orderIds) {
        const charges = outcome.ledger.charges.filter((c) => c.orderId === orderId);
        const found = repeats(outcome.trace, charges);
        const detail = `order ${orderId} was charged ${charges.length} times: ${charges.map((c) => `${c.chargeId} by ${c.by} at ${formatSimMoment(c.atMs)}, ${c.key ? `key ${c.key.slice(0, 8)}…` : 'no key'}`).join(', ')}`;
        if (found.bug) return { held: false, detail, step: found.bug[1].step };
        if (found.excused) gap ??= { detail: `${detail}; ${GAP_NOTE}`, step: charges[1]!.step };
      }
      if (gap) return { held: false, ...gap, beyondKeys: true };
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
      let gap: { detail: string; step: number } | undefined;
      for (const orderId of orderIds) {
        const sent = outcome.ledger.emails.filter((e) => e.orderId === orderId && e.template === template);
        const found = repeats(outcome.trace, sent);
        const detail = `order ${orderId} got ${sent.length} e-mails: ${sent.map((e) => `${e.emailId} by ${e.by} at ${formatSimMoment(e.atMs)}`).join(', ')}`;
        if (found.bug) return { held: false, detail, step: found.bug[1].step };
        if (found.excused) gap ??= { detail: `${detail}; ${GAP_NOTE}`, step: sent[1]!.step };
      }
      if (gap) return { held: false, ...gap, beyondKeys: true };
      return { held: true, detail: 'no order got the same e-mail twice' };
    },
  };
}
