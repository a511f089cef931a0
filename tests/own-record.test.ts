/**
 * own-record reads the trace: a replay counts against the consumer only when the handling that made
 * the first send had finished with an ack (the queue's ack, or a crash just before it) first.
 */
import { expect, test } from 'vitest';
import { ownRecordNotProviderKey } from '../simulations/lessons/kit/own-record';
import type { TraceEvent } from '../simulations/engine/types';
import type { RunOutcome } from '../simulations/engine/world';

const KEY = 'op:receipt-email:1043';

/** A trace from its events' shapes: `i` is each one's place. */
function traceOf(events: Omit<TraceEvent, 'i' | 't' | 'step'>[]): TraceEvent[] {
  return events.map((e, i) => ({ ...e, i, t: i * 1000, step: i }) as TraceEvent);
}

function check(events: Omit<TraceEvent, 'i' | 't' | 'step'>[], firstAt: number, replayAt: number) {
  const trace = traceOf(events);
  const ledger = {
    emails: [{ emailId: 'em_1', to: 'ada@example.com', orderId: 1043, key: KEY, by: 'worker-1', atMs: 0, step: firstAt }],
    replays: [{ kind: 'email.send', key: KEY, by: 'worker-2', step: replayAt }],
  };
  const outcome = { trace, ledger } as unknown as RunOutcome;
  return ownRecordNotProviderKey.check({ outcome, observed: {} } as never) as { held: boolean; detail: string };
}

const receive = (pid: string, messageId: string) => ({ actor: 'queue', type: 'receive', target: pid, text: `queue → ${pid}: message ${messageId}`, data: { messageId } }) as const;
const send = (pid: string) => ({ actor: pid, type: 'call', call: 'email.send', target: 'email', text: `${pid} → email: send` }) as const;
const crashBeforeAck = (pid: string) => ({ actor: pid, type: 'crash', fault: 'crash', text: `${pid} crashes`, data: { before: 'queue.ack' } }) as const;

test('a crash before acking the message whose send it was finishes that handling: a later replay breaks own-record', () => {
  const r = check([receive('worker-1', 'm2'), send('worker-1'), crashBeforeAck('worker-1'), receive('worker-2', 'm2'), send('worker-2')], 1, 4);
  expect(r.held).toBe(false);
  expect(r.detail).toMatch(/had finished that handling at event 2/);
});

test('a crash before acking another message, after the send’s handling ended without an ack, is not that handling’s end', () => {
  // worker-1 sends m2's e-mail, the send times out and the handler throws (m2 stays unacked), then
  // worker-1 takes m1 and crashes before acking it; worker-2's resend of m2 is the key doing its job.
  const r = check(
    [
      receive('worker-1', 'm2'),
      send('worker-1'),
      { actor: 'worker-1', type: 'log', text: 'worker-1: handler threw; message m2 stays unacked' },
      receive('worker-1', 'm1'),
      crashBeforeAck('worker-1'),
      receive('worker-2', 'm2'),
      send('worker-2'),
    ],
    1,
    6,
  );
  expect(r.held, r.detail).toBe(true);
});

test('a handling the provider told that the e-mail had gone, and that then finished, leaves a later replay against the consumer', () => {
  // worker-1 sends and crashes after the send (not before an ack): the first replay, worker-2's, is
  // the key doing its job. worker-2 acks without recording; a third handling's replay breaks own-record.
  const ack = (pid: string, messageId: string) => ({ actor: pid, type: 'ack', target: 'queue', text: `${pid} → queue: ack ${messageId}`, data: { messageId } }) as const;
  const events = [
    receive('worker-1', 'm2'),
    send('worker-1'),
    { actor: 'worker-1', type: 'crash', fault: 'crash', text: 'worker-1 crashes', data: { after: 'email.send' } },
    receive('worker-2', 'm2'),
    send('worker-2'),
    ack('worker-2', 'm2'),
    receive('worker-1', 'm2'),
    send('worker-1'),
  ] as Omit<TraceEvent, 'i' | 't' | 'step'>[];
  const outcome = (replays: { by: string; step: number }[]) =>
    ({
      trace: traceOf(events),
      ledger: {
        emails: [{ emailId: 'em_1', to: 'ada@example.com', orderId: 1043, key: KEY, by: 'worker-1', atMs: 0, step: 1 }],
        replays: replays.map((r) => ({ kind: 'email.send', key: KEY, ...r })),
      },
    }) as unknown as RunOutcome;
  const once = ownRecordNotProviderKey.check({ outcome: outcome([{ by: 'worker-2', step: 4 }]), observed: {} } as never) as { held: boolean; detail: string };
  expect(once.held, once.detail).toBe(true);
  const twice = ownRecordNotProviderKey.check({ outcome: outcome([{ by: 'worker-2', step: 4 }, { by: 'worker-1', step: 7 }]), observed: {} } as never) as { held: boolean; detail: string };
  expect(twice.held).toBe(false);
  expect(twice.detail).toMatch(/worker-2 had been told at event 4 that it had gone and had finished that handling at event 5/);
});
