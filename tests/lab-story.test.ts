/**
 * The story the timeline tells as it plays, derived from real runs of real lessons on PGlite: the
 * queue's messages and their states at each event (ready, in flight with the visibility timeout's
 * countdown, acked, dead-lettered), each claim's lease left or expired, and what each event
 * carries from one lane to another. Checked at chosen events against what the trace says, and
 * across every lesson against the engine's own redeliveries.
 */
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { claimsAt, describeLease, hasClaims } from '../components/lab/view/leases';
import { describeMessage, hasQueue, queueAt, type QueueMessage } from '../components/lab/view/queue-states';
import { QueueAndLeases } from '../components/lab/view/QueueAndLeases';
import { formatSimTime } from '../components/lab/view/snapshots';
import { Timeline } from '../components/lab/view/Timeline';
import { tokenStop } from '../components/lab/view/TravellingMessage';
import { travelOf } from '../components/lab/view/travel';
import { runForLab, type LabRun } from '../simulations/run/lab-run';
import { LESSONS, lessonById } from '../simulations/lessons/index';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const h = React.createElement;
const sim = simDbPerFile();
const runs = new Map<string, LabRun>();

/** The lesson's demonstration with its starter or solution (run once per file). */
async function demo(id: string, variant: 'starter' | 'solution'): Promise<LabRun> {
  const key = `${id}/${variant}`;
  if (!runs.has(key)) {
    const scenario = lessonById(id);
    runs.set(key, await runForLab(sim.db, { scenario, code: scenario.variants[variant].code, variant, seed: scenario.demo.seed }));
  }
  return runs.get(key)!;
}

/** The one message `id` at event `i`. */
function message(run: LabRun, i: number, id = 'm1'): QueueMessage {
  const m = queueAt(run.result, i).find((x) => x.id === id);
  expect(m, `message ${id} at event ${i}; ${replayHint(run.result)}`).toBeDefined();
  return m!;
}

/** Event `i`'s narration, so a test that picked the wrong event says which one it got. */
const at = (run: LabRun, i: number) => `event ${i}: ${run.result.trace[i]?.text}`;

describe('the queue at each event', () => {
  test('lease-expiry, solution: m1 ready, in flight to worker-1 with 30 s left, still held by the crashed worker, visible again, redelivered, acked', async () => {
    const run = await demo('lease-expiry', 'solution');
    const trace = run.result.trace;
    expect(run.result.queueSettings).toEqual({ visibilityTimeoutMs: 30_000, maxReceives: 10, initial: ['m1'] });
    expect(queueAt(run.result, -1)).toEqual([{ id: 'm1', state: 'ready', deliveries: 0, holders: [], holdersCrashed: [], since: -1 }]);

    const delivered = trace.findIndex((e) => e.type === 'receive' && e.target === 'worker-1');
    expect(message(run, delivered)).toMatchObject({ state: 'in-flight', holders: ['worker-1'], deliveries: 1, timeoutInMs: 30_000, onTimeout: 'redeliver' });

    const crash = trace.findIndex((e) => e.type === 'crash');
    expect(message(run, crash), at(run, crash)).toMatchObject({ state: 'in-flight', holders: ['worker-1'], holdersCrashed: ['worker-1'] });
    // The restart 5 s later does not give the message back: it waits out its timeout.
    const restart = trace.findIndex((e) => e.type === 'restart');
    expect(trace[restart].t).toBe(5_000);
    expect(message(run, restart)).toMatchObject({ state: 'in-flight', holdersCrashed: ['worker-1'], timeoutInMs: 25_000 });
    expect(describeMessage(message(run, restart), formatSimTime)).toBe('in flight to worker-1 · worker-1 crashed holding it · visible again in 25.0 s');

    const redeliver = trace.findIndex((e) => e.type === 'redeliver');
    expect(message(run, redeliver)).toMatchObject({ state: 'ready', deliveries: 1, holders: [], since: redeliver });
    expect(describeMessage(message(run, redeliver), formatSimTime)).toBe('ready again (delivered 1× so far)');
    expect(message(run, redeliver + 1), at(run, redeliver + 1)).toMatchObject({ state: 'in-flight', holders: ['worker-2'], holdersCrashed: [], deliveries: 2, timeoutInMs: 30_000 });

    const ack = trace.findIndex((e) => e.type === 'ack');
    expect(message(run, ack - 1).state).toBe('in-flight');
    expect(message(run, ack)).toMatchObject({ state: 'acked', ackedBy: 'worker-1', holders: [] });
    expect(describeMessage(message(run, ack), formatSimTime)).toBe('acked by worker-1');
  });

  test('lease-expiry, starter: the tenth delivery counts down to a dead letter, and the message is dead-lettered', async () => {
    const run = await demo('lease-expiry', 'starter');
    const trace = run.result.trace;
    const tenth = trace.findIndex((e) => e.type === 'receive' && (e.data as { attempt?: number } | undefined)?.attempt === 10);
    expect(tenth, 'the tenth delivery').toBeGreaterThan(0);
    expect(message(run, tenth)).toMatchObject({ state: 'in-flight', deliveries: 10, onTimeout: 'dead-letter', timeoutInMs: 30_000 });
    expect(describeMessage(message(run, tenth), formatSimTime)).toMatch(/dead-lettered in 30\.0 s$/);
    const dead = trace.findIndex((e) => e.type === 'dead-letter');
    expect(message(run, dead)).toMatchObject({ state: 'dead-lettered', deliveries: 10 });
    expect(describeMessage(message(run, dead), formatSimTime)).toBe('dead-lettered after 10 deliveries');
  });

  test('concurrent-redelivery: a duplicate delivery leaves m1 in flight to both workers, its timer restarted', async () => {
    const run = await demo('concurrent-redelivery', 'starter');
    const dup = run.result.trace.findIndex((e) => e.fault === 'duplicate-delivery');
    expect(message(run, dup - 1).holders).toEqual(['worker-1']);
    expect(message(run, dup)).toMatchObject({ state: 'in-flight', holders: ['worker-1', 'worker-2'], deliveries: 2, timeoutInMs: 30_000 });
    expect(describeMessage(message(run, dup), formatSimTime)).toBe('in flight to worker-1 and worker-2 · visible again in 30.0 s');
  });

  test('relay-crash: each publish adds a ready message under the ledger’s id, which a worker then receives and acks', async () => {
    const run = await demo('relay-crash', 'starter');
    const trace = run.result.trace;
    expect(queueAt(run.result, 0)).toEqual([]);
    const [first, second] = run.result.ledger.published;
    expect(trace[first.step].type).toBe('publish');
    expect(queueAt(run.result, first.step)).toEqual([{ id: 'p1', state: 'ready', deliveries: 0, holders: [], holdersCrashed: [], since: first.step }]);
    const received = trace.findIndex((e) => e.type === 'receive' && (e.data as { messageId?: string } | undefined)?.messageId === 'p1');
    expect(message(run, received, 'p1')).toMatchObject({ state: 'in-flight', holders: ['worker-1'] });
    const end = trace.length - 1;
    expect(queueAt(run.result, end).map((m) => [m.id, m.state, m.ackedBy])).toEqual([
      ['p1', 'acked', 'worker-1'],
      ['p2', 'acked', 'worker-1'],
    ]);
    expect(second.id).toBe('p2');
  });

  test('a lesson without a queue has none to show: batch-credits, ambiguous-timeout-charge', async () => {
    expect(hasQueue((await demo('batch-credits', 'starter')).result)).toBe(false);
    expect(hasQueue((await demo('ambiguous-timeout-charge', 'solution')).result)).toBe(false);
    expect(hasQueue((await demo('dual-write', 'solution')).result)).toBe(true);
  });

  test('every lesson, both variants: the countdown reaches 0 exactly when the engine redelivers or dead-letters, and every delivery is counted as the queue counts it', async () => {
    let checked = 0;
    for (const lesson of LESSONS) {
      for (const variant of ['starter', 'solution'] as const) {
        const run = await demo(lesson.id, variant);
        const trace = run.result.trace;
        for (const e of trace) {
          const id = (e.data as { messageId?: unknown } | undefined)?.messageId;
          if (typeof id !== 'string') continue;
          if (e.type === 'redeliver' || e.type === 'dead-letter') {
            const before = message(run, e.i - 1, id);
            expect(before.state, `${lesson.id}/${variant} ${at(run, e.i)}`).toBe('in-flight');
            expect(before.timeoutInMs, `${lesson.id}/${variant} ${at(run, e.i)}`).toBe(e.t - trace[e.i - 1].t);
            expect(before.onTimeout).toBe(e.type === 'redeliver' ? 'redeliver' : 'dead-letter');
            checked++;
          }
          if (e.type === 'receive') expect(message(run, e.i, id).deliveries, `${lesson.id}/${variant} ${at(run, e.i)}`).toBe((e.data as { attempt: number }).attempt);
        }
      }
    }
    expect(checked, 'redeliveries checked').toBeGreaterThan(10);
  });
});

describe('leases at each event', () => {
  test('lease-expiry, solution: 60 s claimed, 30 s left at the redelivery, 0 s left (still held) at 60 s, expired 30 s ago at 90 s, a new lease on takeover, then done', async () => {
    const run = await demo('lease-expiry', 'solution');
    expect(hasClaims(run)).toBe(true);
    const trace = run.result.trace;
    const claims = (i: number) => claimsAt(run, i);
    // The claim's INSERT and the crash right after it are one step: the tables show the row from the crash on.
    const insert = trace.findIndex((e) => e.type === 'db' && e.actor === 'worker-1');
    expect(claims(insert - 1)).toEqual([]);
    const shown = trace.findIndex((_, i) => claims(i).length > 0);
    expect(shown).toBe(trace.findIndex((e) => e.type === 'crash'));
    expect(claims(shown)).toMatchObject([{ table: 'operations', state: 'running', status: 'held', leftMs: 60_000 }]);
    const at30 = trace.findIndex((e) => e.t === 30_000 && e.type === 'receive');
    expect(claims(at30)).toMatchObject([{ status: 'held', leftMs: 30_000 }]);
    const at60 = trace.findIndex((e) => e.t === 60_000 && e.type === 'receive');
    expect(claims(at60)).toMatchObject([{ status: 'held', leftMs: 0 }]);
    expect(describeLease(claims(at60)[0], formatSimTime)).toBe('0.0 s left');
    const at90 = trace.findIndex((e) => e.t === 90_000 && e.type === 'receive');
    expect(claims(at90)).toMatchObject([{ status: 'expired', leftMs: -30_000 }]);
    expect(describeLease(claims(at90)[0], formatSimTime)).toBe('expired 30.0 s ago');
    // worker-1 takes the expired claim over: a fresh 60 s from 90 s.
    expect(claims(at90 + 1), at(run, at90 + 1)).toMatchObject([{ status: 'held', leftMs: 60_000, until: '2026-01-05T09:02:30.000Z' }]);
    const last = trace.length - 1;
    expect(claims(last)).toMatchObject([{ state: 'done', status: 'done' }]);
    expect(claims(last)[0].key).toMatch(/^[0-9a-f]{64}$/);
  });

  test('lease-expiry, starter: a claim with no lease at all never expires', async () => {
    const run = await demo('lease-expiry', 'starter');
    const c = claimsAt(run, run.result.trace.length - 1);
    expect(c).toMatchObject([{ state: 'running', status: 'never', until: 'infinity', leftMs: null }]);
    expect(describeLease(c[0], formatSimTime)).toBe('never expires');
  });

  test('no lease column, no claims: receipt-redelivery’s starter never writes one, dual-write’s tables have none', async () => {
    expect(hasClaims(await demo('receipt-redelivery', 'starter'))).toBe(false);
    const dual = await demo('dual-write', 'solution');
    expect(hasClaims(dual)).toBe(false);
    expect(claimsAt(dual, dual.result.trace.length - 1)).toEqual([]);
  });
});

describe('what each event carries between lanes', () => {
  test('receipt-redelivery: a delivery, a call, its answer and an ack travel; a start and "no messages left" do not', async () => {
    const run = await demo('receipt-redelivery', 'starter');
    const trace = run.result.trace;
    const of = (pred: (e: (typeof trace)[number]) => boolean) => travelOf(trace.find(pred)!, run.result.ledger);
    expect(of((e) => e.type === 'receive' && e.target === 'worker-1')).toMatchObject({ from: 'queue', to: 'worker-1', label: 'm1', lost: false });
    expect(of((e) => e.type === 'call')).toMatchObject({ from: 'worker-1', to: 'email', label: 'send', lost: false });
    expect(of((e) => e.type === 'reply')).toMatchObject({ from: 'email', to: 'worker-1', label: 'answer' });
    expect(of((e) => e.type === 'ack')).toMatchObject({ from: 'worker-2', to: 'queue', label: 'ack m1', description: 'the ack of m1 travels from worker-2 to queue' });
    expect(of((e) => e.type === 'start')).toBeNull();
    expect(of((e) => e.type === 'receive' && e.text.endsWith('no messages left'))).toBeNull();
    expect(of((e) => e.type === 'crash')).toBeNull();
  });

  test('a publish carries its message id; a lost response stops on its way back', async () => {
    const relay = await demo('relay-crash', 'starter');
    const publish = relay.result.trace.find((e) => e.type === 'publish')!;
    expect(travelOf(publish, relay.result.ledger)).toMatchObject({ from: 'relay-1', to: 'queue', label: 'p1' });
    const charge = await demo('ambiguous-timeout-charge', 'starter');
    const timeout = charge.result.trace.find((e) => e.type === 'timeout')!;
    expect(timeout.fault).toBe('lose-response');
    expect(travelOf(timeout, charge.result.ledger)).toMatchObject({ from: 'payments', to: 'checkout', label: 'answer', lost: true });
  });

  test('a token stops short of the receiver’s lane, or past halfway when it never arrives', () => {
    expect(tokenStop(100, 200, false, 18)).toBe(185);
    expect(tokenStop(200, 100, false, 18)).toBe(115);
    expect(tokenStop(100, 200, true, 18)).toBe(155);
  });
});

describe('drawn in the timeline', () => {
  test('at the redelivered m1’s second delivery: the token travels queue → worker-2, the strip says m1 is in flight to worker-2 with 30.0 s left', async () => {
    const run = await demo('receipt-redelivery', 'starter');
    const i = run.result.trace.findIndex((e) => e.type === 'receive' && e.target === 'worker-2' && e.text.includes('m1'));
    const html = renderToStaticMarkup(h(Timeline, { run, actors: ['queue', 'worker-1', 'worker-2', 'postgres', 'email'], selected: i, visibleUpTo: i, onSelect: () => {} }));
    expect(html).toMatch(/data-testid="travelling-message" data-event="\d+" data-from="queue" data-to="worker-2" data-label="m1"/);
    expect(html).toContain('data-message="m1" data-state="in-flight"');
    expect(html).toContain('in flight to worker-2 · visible again in 30.0 s');
    expect(html).toContain('At this event message m1 travels from queue to worker-2.');
    // A step that carries nothing draws no token.
    const start = renderToStaticMarkup(h(Timeline, { run, actors: ['queue', 'worker-1', 'worker-2', 'postgres', 'email'], selected: 0, visibleUpTo: 0, onSelect: () => {} }));
    expect(start).not.toContain('travelling-message');
    expect(start).toContain('data-message="m1" data-state="ready"');
  });

  test('the strip: leases where the tables have them, nothing for a lesson with neither a queue nor a lease', async () => {
    const run = await demo('lease-expiry', 'solution');
    const i = run.result.trace.findIndex((e) => e.t === 90_000 && e.type === 'receive');
    const html = renderToStaticMarkup(h(QueueAndLeases, { run, selected: i, travel: null }));
    expect(html).toContain('data-lease="expired"');
    expect(html).toContain('running · expired 30.0 s ago');
    expect(html).toContain('in flight to worker-1 · visible again in 30.0 s');
    const batch = await demo('batch-credits', 'starter');
    expect(renderToStaticMarkup(h(QueueAndLeases, { run: batch, selected: 3, travel: null }))).toBe('');
    expect(renderToStaticMarkup(h(QueueAndLeases, { run, selected: -1, travel: null }))).toBe('');
  });
});
