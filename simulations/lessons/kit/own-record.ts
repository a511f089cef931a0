/**
 * The consumer's own record, checked from the trace: a provider's idempotency key is the backstop
 * for a crash between a send and its record, never the record itself.
 */
import type { TraceEvent } from '../../engine/types';
import type { Invariant } from './scenario';

/**
 * The consumer keeps its own record of finished work; the provider's idempotency key is the
 * backstop for the one gap the record cannot close (a crash between the send and the record), not
 * the record itself. Providers keep keys for a while (Stripe: 24 hours), many e-mail services keep
 * none, and a key the consumer never checks also lets it act on anything else the repeat does.
 *
 * Broken when the provider answered a repeat of a send (a replay) although a handling that had
 * asked for that e-mail earlier — the one that sent it, or one the provider answered with a replay,
 * which learnt from the answer that the e-mail had gone — had finished before the repeat was asked
 * for: its handler answered 'ack' for that delivery (the queue's ack, or a crash just before it),
 * or its run returned. After a crash or a timeout around the send a replay is the backstop doing
 * its job, and is not counted.
 */
export const ownRecordNotProviderKey: Invariant = {
  id: 'own-record',
  title: 'Finished work is never sent again (the provider\'s key is a backstop, not the record)',
  check({ outcome, observed }) {
    const { trace, ledger } = outcome;
    const emailReplays = ledger.replays.filter((r) => r.kind === 'email.send');
    for (const replay of emailReplays) {
      const first = ledger.emails.find((e) => e.key === replay.key);
      if (!first) continue;
      // Who asked for this e-mail before and heard it had gone: its sender, and every earlier repeat.
      const earlier = [{ by: first.by, step: first.step, how: `had sent it (${first.emailId}, event ${first.step})` }].concat(
        emailReplays.filter((r) => r.key === replay.key && r.step < replay.step).map((r) => ({ by: r.by, step: r.step, how: `had been told at event ${r.step} that it had gone` })),
      );
      for (const asker of earlier) {
        const finishedAt = handlingFinished(trace, asker.by, asker.step, replay.step) ?? runFinished(trace, observed, asker.by, asker.step, replay.step);
        if (finishedAt === null) continue;
        return {
          held: false,
          detail: `${replay.by} sent order ${first.orderId}'s e-mail again at event ${replay.step}, though ${asker.by} ${asker.how} and had finished that handling at event ${finishedAt}. Only the provider's idempotency key kept a second e-mail from going out: the consumer did not know from its own record that the work was done.`,
          step: replay.step,
        };
      }
    }
    return { held: true, detail: ledger.replays.length ? 'every repeat the provider answered came after a crash or a failure around the first send' : 'no send was repeated' };
  },
};

/**
 * For a process that handles no deliveries (a one-shot run): the event at which it finished after
 * event `at` and before event `before`, when its call returned a value (`observed[pid]`) and it did
 * not crash in between; else null.
 */
function runFinished(trace: readonly TraceEvent[], observed: Record<string, unknown>, pid: string, at: number, before: number): number | null {
  const returned = observed[pid] as { value?: unknown } | undefined;
  if (!returned || !('value' in returned)) return null;
  for (let i = at + 1; i < before && i < trace.length; i++) {
    const e = trace[i];
    if (e.actor !== pid) continue;
    if (e.type === 'crash') return null;
    if (e.type === 'finish') return e.i;
  }
  return null;
}

/**
 * The event at which `pid`'s handling of the delivery it held at event `at` finished with an ack
 * (the queue's ack of that message, or a crash just before it while it still held that delivery),
 * if that was before event `before`; else null.
 */
function handlingFinished(trace: readonly TraceEvent[], pid: string, at: number, before: number): number | null {
  let messageId: unknown;
  for (let i = at; i >= 0; i--) {
    const e = trace[i];
    if (e.type === 'receive' && e.target === pid) {
      messageId = (e.data as { messageId?: unknown } | undefined)?.messageId;
      break;
    }
  }
  if (messageId === undefined) return null;
  for (let i = at + 1; i < before && i < trace.length; i++) {
    const e = trace[i];
    // The process asked for its next delivery: that handling ended without an ack (it threw, or
    // answered 'retry-later'), and a crash from here on belongs to another handling.
    if (e.type === 'receive' && e.target === pid) return null;
    if (e.actor !== pid) continue;
    if (e.type === 'ack' && (e.data as { messageId?: unknown } | undefined)?.messageId === messageId) return e.i;
    if (e.type === 'crash') return (e.data as { before?: unknown } | undefined)?.before === 'queue.ack' ? e.i : null;
  }
  return null;
}
