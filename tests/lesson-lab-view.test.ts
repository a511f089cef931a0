/**
 * The lab's views on the new scenarios: the ledger shows credits (and an item billed twice),
 * 429/402/unanswered items, reminders per business date; the fault buttons name processes and
 * calls that exist in each scenario; the inspector's tables exist after a run (on PGlite).
 */
import { readFileSync } from 'node:fs';
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { heldMessageAt, nextLostResponse, nextResponseCall, workerUpAt } from '../components/lab/actions/lab-actions';
import { callKindOf, canRedeliver, providerOf, toLabScenario, workersOf } from '../components/lab/lab-scenario';
import { Ledger } from '../components/lab/view/Ledger';
import { formatSimMoment, formatSimTime, simClockTime } from '../components/lab/view/snapshots';
import { clockShown, timeColumnWidth } from '../components/lab/view/EventLog';
import { runForLab } from '../simulations/run/lab-run';
import { runScenario } from '../simulations/run/run';
import { LESSONS, lessonById } from '../simulations/lessons/index';
import { replayHint, simDbPerFile } from './helpers/sim-db';
import type { Fault, TraceEvent } from '../simulations/engine/types';

const h = React.createElement;
const sim = simDbPerFile();

async function ledgerHtml(id: string, variant: 'starter' | 'solution', seed?: number) {
  const scenario = lessonById(id);
  const run = await runForLab(sim.db, { scenario, code: scenario.variants[variant].code, variant, seed: seed ?? scenario.demo.seed });
  return { run, html: renderToStaticMarkup(h(Ledger, { run, selected: run.result.trace.length - 1, actors: scenario.actors })) };
}

describe('Ledger on the new scenarios', () => {
  test('batch-credits: the starter re-bills items (called out), the refusals are listed, no empty receipts section', async () => {
    const bad = await ledgerHtml('batch-credits', 'starter');
    expect(bad.html).toContain('Credits spent');
    expect(bad.html).toContain('billed again for a replay');
    expect(bad.html).toContain('hmac of order-1042:charge');
    expect(bad.html).toContain('(rate window full)');
    expect(bad.html).toContain('(out of credits)');
    expect(bad.html).toContain('(past the batch deadline)');
    expect(bad.html).not.toContain('Receipts per order');
    const good = await ledgerHtml('batch-credits', 'solution');
    expect(good.html).not.toContain('billed again');
    expect(good.html).not.toContain(' under whsec_');
  });

  test('batch-credits, seed 3: the same text under two secrets is two items, each named with its secret', async () => {
    const { html } = await ledgerHtml('batch-credits', 'solution', 3);
    expect(html).toContain('hmac of order-1044:charge under whsec_demo');
    expect(html).toContain('hmac of order-1044:charge under whsec_rotated');
    expect(html).not.toContain('hmac of order-1042:charge under');
    expect(html).not.toContain('billed again');
  });

  test('business-date-reminder: reminders are counted per business date', async () => {
    const bad = await ledgerHtml('business-date-reminder', 'starter');
    expect(bad.html).toContain('2 reminders for order 1042 due 2026-01-05');
    expect(bad.html).toContain('duplicate');
    const good = await ledgerHtml('business-date-reminder', 'solution');
    expect(good.html).toContain('1 reminder for order 1042 due 2026-01-05');
    expect(good.html).toContain('1 reminder for order 1042 due 2026-01-06');
    expect(good.html).not.toContain('duplicate');
  });

  test('business-date-reminder: a redelivery after midnight counts for the date it was for, as the invariant counts it', async () => {
    // A reminder keyed on the attempt's date; worker-1 dies before acking its second message, order
    // 1042's 23:59 rerun, which comes back after midnight and goes out again under the 6th's key.
    const scenario = lessonById('business-date-reminder');
    const code = readFileSync(new URL('./fixtures/anti-patterns/business-date-reminder-attempt-date.ts', import.meta.url), 'utf8');
    const faults: Fault[] = [{ kind: 'crash', process: 'worker-1', before: 'queue.ack', nth: 2 }];
    const run = await runForLab(sim.db, { scenario, code, variant: 'attempt-date', seed: 1, faults });
    const broken = run.result.invariants.find((i) => i.id === 'one-reminder-per-date');
    expect(broken?.held, replayHint(run.result)).toBe(false);
    const html = renderToStaticMarkup(h(Ledger, { run, selected: run.result.trace.length - 1, actors: scenario.actors }));
    expect(html).toContain('2 reminders for order 1042 due 2026-01-05');
    expect(html).toContain('duplicate');
  });

  test('moving-answers: the two lookups show the answer moving', async () => {
    const bad = await ledgerHtml('moving-answers', 'starter');
    expect(bad.html).toContain('check ada@example.com');
    expect(bad.html).toContain('deliverable → risky');
  });

  test('replay-safety: credits for the safe half, a duplicate charge and e-mail for the unsafe half', async () => {
    const bad = await ledgerHtml('replay-safety', 'starter');
    expect(bad.html).toContain('html-to-pdf of');
    expect(bad.html).toContain('2 charges for order 1042');
    expect(bad.html).toContain('2 shipped e-mails for order 1042');
    const tables = bad.run.snapshots.at(-1)!.tables;
    expect(tables.counters).toEqual([{ name: 'orders_shipped', value: 2 }]);
    expect(tables.audit_log).toHaveLength(2);
  });

  test.each(['dual-write', 'relay-concurrency'])('%s: an outbox lab shows what it published, and no e-mail sections', async (id) => {
    for (const variant of ['starter', 'solution'] as const) {
      const { html } = await ledgerHtml(id, variant);
      expect(html).toContain('Messages published');
      expect(html).not.toContain('Receipts per order');
      expect(html).not.toContain('E-mails sent');
    }
  });

  test('receipt-redelivery still shows its receipts (e-mail is among its actors)', async () => {
    const { html } = await ledgerHtml('receipt-redelivery', 'starter');
    expect(html).toContain('Receipts per order');
    expect(html).toContain('E-mails sent');
  });

  test('times past an hour read in hours', () => {
    expect(formatSimTime(25 * 3_600_000 + 3_000)).toBe('25 h 0 min 3 s');
    expect(formatSimTime(24 * 3_600_000)).toBe('24 h');
    expect(formatSimTime(15 * 3_600_000 + 60_000)).toBe('15 h 1 min');
    expect(formatSimTime(15 * 3_600_000 + 30_200)).toBe('15 h 0 min 30.2 s');
  });

  test('past an hour, a moment in a sentence gives the wall clock too, as the briefs say times (the run starts Jan 5, 09:00 UTC)', () => {
    expect(simClockTime(59 * 60_000)).toBeNull();
    expect(formatSimMoment(30_000)).toBe('30.0 s');
    expect(formatSimMoment(14 * 3_600_000 + 59 * 60_000)).toBe('14 h 59 min (Jan 5, 23:59)');
    expect(formatSimMoment(15 * 3_600_000 + 30_200)).toBe('15 h 0 min 30.2 s (Jan 6, 00:00:30)');
    expect(formatSimMoment(26 * 3_600_000 + 3_000)).toBe('26 h 0 min 3 s (Jan 6, 11:00:03)');
  });

  test('the event log shows the wall clock on the first event of each minute past the first hour', () => {
    const at = (t: number) => ({ t });
    expect(clockShown(at(5_000), undefined)).toBeNull();
    expect(clockShown(at(3_600_000), at(5_000))).toBe('Jan 5, 10:00');
    expect(clockShown(at(3_600_000 + 20_000), at(3_600_000))).toBeNull();
    expect(clockShown(at(3_660_000), at(3_600_000 + 20_000))).toBe('Jan 5, 10:01');
    // The first line shown (a log scrolled to start past the hour) always has it.
    expect(clockShown(at(26 * 3_600_000), undefined)).toBe('Jan 6, 11:00');
  });

  test("the event log's time column fits the run's longest time, so every line's text starts at the same place", () => {
    const at = (t: number) => ({ t });
    expect(timeColumnWidth([at(0), at(200)])).toBe(6);
    expect(timeColumnWidth([at(0), at(14 * 3_600_000 + 59 * 60_000 + 200), at(24 * 3_600_000)])).toBe('14 h 59 min 0.2 s'.length);
    expect(timeColumnWidth([at(0), at(3_600_000)])).toBe('Jan 5, 10:00'.length);
  });
});

describe('fault buttons of every scenario', () => {
  test.each(LESSONS.map((s) => [s.id, s] as const))('%s: crash targets and the lost call exist in the world', async (_id, scenario) => {
    const lab = toLabScenario(scenario);
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 });
    const actorsSeen = new Set(r.trace.flatMap((e) => [e.actor, e.target]));
    for (const w of workersOf(lab)) expect(actorsSeen.has(w), `${w} never acts (${replayHint(r)})`).toBe(true);
    const call = callKindOf(lab);
    if (call) expect(r.trace.some((e) => e.type === 'call' && e.target === providerOf(call)), `${call} is never called (${replayHint(r)})`).toBe(true);
  });

  // "Redeliver now" hands a message a consumer holds at the event on screen to a second consumer;
  // message ids differ by scenario (m1, evt_1, p1…), so the button reads them from the run, and the
  // injected rerun must really deliver that message twice, and not before the event on screen.
  test.each(LESSONS.filter((s) => canRedeliver(toLabScenario(s))).map((s) => [s.id, s] as const))(
    '%s: "Redeliver now" redelivers a message held at that moment, from then on',
    async (_id, scenario) => {
      // No plan of its own, so the only duplicate delivery is the injected one. The demonstration's
      // seed: a world that varies by seed may hold a message only while every consumer is busy.
      const seed = scenario.demo.seed;
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed, faults: [] });
      const at = r.trace.find((e) => heldMessageAt(r.trace, e.i) !== null);
      expect(at, `no message was ever held (${replayHint(r)})`).toBeTruthy();
      const message = heldMessageAt(r.trace, at!.i)!;
      const again = await runScenario(sim.db, {
        scenario,
        code: scenario.variants.starter.code,
        variant: 'starter',
        seed,
        choices: r.choices,
        faults: [...r.faults, { kind: 'duplicate-delivery', message, atStep: at!.step }],
      });
      const dup = again.trace.find((e) => e.type === 'receive' && e.fault === 'duplicate-delivery');
      expect(dup, `injecting a duplicate of ${message} changed nothing (${replayHint(again)})`).toBeTruthy();
      expect((dup!.data as { messageId: string }).messageId).toBe(message);
      expect(dup!.step).toBeGreaterThan(at!.step);
      expect(again.faultEvents.at(-1)).toBe(dup!.i);
    },
  );

  test('the message to redeliver is one held once the selected event\'s step has run, the last received', () => {
    const ev = (i: number, step: number, type: 'receive' | 'ack' | 'redeliver' | 'dead-letter', id: string) => ({ i, t: 0, step, actor: 'queue', type, text: '', data: { messageId: id } });
    const trace = [ev(0, 1, 'receive', 'p1'), ev(1, 2, 'receive', 'p2'), ev(2, 3, 'ack', 'p2'), ev(3, 4, 'redeliver', 'p1'), ev(4, 5, 'receive', 'p1'), ev(5, 6, 'receive', 'p2'), ev(6, 6, 'ack', 'p2'), ev(7, 7, 'dead-letter', 'p1')];
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => heldMessageAt(trace, i))).toEqual(['p1', 'p2', 'p1', null, 'p1', 'p1', 'p1', null]);
    expect(heldMessageAt([], 3)).toBeNull();
  });
});

describe('"Lose the next response" loses the response in flight, or the next one, of any call', () => {
  test('replay-safety: just before the charge, the charge (not the next e-mail); batch-credits: on the batch call, that batch', async () => {
    const at = async (id: string, pick: (e: TraceEvent) => boolean, offset: number) => {
      const scenario = lessonById(id);
      const base = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
      const call = base.trace.find(pick)!;
      expect(call, id).toBeDefined();
      return nextLostResponse(base.trace, call.i + offset);
    };
    expect(await at('replay-safety', (e) => e.type === 'call' && e.call === 'payments.charge', -1)).toEqual({ kind: 'lose-response', call: 'payments.charge', nth: 1 });
    expect(await at('batch-credits', (e) => e.type === 'call' && e.call === 'transform.batch', 0)).toEqual({ kind: 'lose-response', call: 'transform.batch', nth: 1 });
  });

  test('a call whose answer is back, or whose caller crashed, is not in flight', () => {
    const ev = (i: number, type: TraceEvent['type'], actor: string, target: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({ i, t: i, step: i, actor, type, text: `${i}`, target, ...extra });
    const trace = [
      ev(0, 'call', 'w1', 'email', { call: 'email.send' }),
      ev(1, 'call', 'w2', 'payments', { call: 'payments.charge' }),
      ev(2, 'reply', 'email', 'w1'),
      ev(3, 'crash', 'w2', ''),
      ev(4, 'log', 'w1', ''),
      ev(5, 'call', 'w1', 'email', { call: 'email.send', fault: 'lose-request' }),
      ev(6, 'timeout', 'w1', 'email'),
      ev(7, 'call', 'w1', 'email', { call: 'email.send' }),
    ];
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => nextResponseCall(trace, i)?.i ?? null)).toEqual([0, 0, 1, 7, 7, 7, 7, 7]);
    expect(nextLostResponse(trace, 4)).toEqual({ kind: 'lose-response', call: 'email.send', nth: 3 });
    expect(nextResponseCall(trace.slice(0, 7), 6)).toBeNull();
  });
});

describe('fault buttons are offered only where the fault can happen', () => {
  test('"Crash X now" is enabled exactly where the crash lands, "Lose the next response" wherever a call is still to come (every scenario, every event)', async () => {
    let checked = 0;
    let offered = 0;
    for (const scenario of LESSONS) {
      const lab = toLabScenario(scenario);
      const base = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
      const call = callKindOf(lab);
      // Every event where a worker's state or a call changes, and every third one besides.
      const edges = base.trace.filter((e, k) => k % 3 === 0 || ['start', 'restart', 'crash', 'finish', 'call'].includes(e.type) || base.trace[k - 1]?.type === 'restart');
      for (const e of edges) {
        const injected: { fault: Fault; predicted: boolean }[] = workersOf(lab).map((w) => ({
          fault: { kind: 'crash', process: w, atStep: e.step },
          predicted: workerUpAt(base.trace, e.i, w),
        }));
        const lost = call ? nextLostResponse(base.trace, e.i) : null;
        if (lost) injected.push({ fault: lost, predicted: true });
        for (const { fault, predicted } of injected) {
          // As the lab injects: the same schedule (its choices), the plan plus the fault.
          const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: base.seed, choices: base.choices, faults: [...base.faults, fault], verdictOnly: true });
          const happened = r.faultEvents.at(-1) !== null;
          const why = `${JSON.stringify(fault)} at event ${e.i + 1}: offered ${predicted}, happened ${happened} (${replayHint(r)})`;
          // A crash is offered exactly when it lands. A lost response is never withheld where it could
          // happen; where offered it may still change nothing (its caller crashed before the timeout).
          if (fault.kind === 'crash') expect(happened, why).toBe(predicted);
          else if (happened) {
            // The response lost is the one chosen: the same call, by the same caller, then its timeout.
            const chosen = nextResponseCall(base.trace, e.i)!;
            expect(r.trace[chosen.i]?.text, why).toBe(chosen.text);
            expect(r.trace[r.faultEvents.at(-1)!], why).toMatchObject({ type: 'timeout', actor: chosen.actor, target: chosen.target });
          }
          checked++;
          if (predicted) offered++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
    expect(offered).toBeGreaterThan(50);
    expect(checked - offered).toBeGreaterThan(50);
  }, 600_000);

  test('"Redeliver now" hands the held message to another consumer from that moment on, never sooner (every scenario that offers it, every event)', async () => {
    let offered = 0;
    let happened = 0;
    for (const scenario of LESSONS.filter((s) => canRedeliver(toLabScenario(s)))) {
      for (const variant of ['starter', 'solution'] as const) {
        const code = scenario.variants[variant].code;
        const base = await runScenario(sim.db, { scenario, code, variant, seed: scenario.demo.seed });
        for (const e of base.trace) {
          const message = heldMessageAt(base.trace, e.i);
          if (message === null) continue;
          const fault: Fault = { kind: 'duplicate-delivery', message, atStep: e.step };
          const r = await runScenario(sim.db, { scenario, code, variant, seed: base.seed, choices: base.choices, faults: [...base.faults, fault], verdictOnly: true });
          const at = r.faultEvents.at(-1) ?? null;
          offered++;
          if (at === null) continue;
          happened++;
          const dup = r.trace[at]!;
          const why = `${JSON.stringify(fault)} at event ${e.i + 1} of ${variant}: took effect at event ${at + 1} (${replayHint(r)})`;
          expect(dup.type === 'receive' && dup.fault === 'duplicate-delivery', why).toBe(true);
          expect((dup.data as { messageId: string }).messageId, why).toBe(message);
          expect(dup.step, why).toBeGreaterThan(e.step);
        }
      }
    }
    console.log(`"Redeliver now": offered at ${offered} events, took effect at ${happened}`);
    expect(offered).toBeGreaterThan(20);
    expect(happened).toBeGreaterThan(offered / 2);
  }, 600_000);
});
