/**
 * The lab's views on the new scenarios: the ledger shows credits (and an item billed twice),
 * 429/402/unanswered items, reminders per business date; the fault buttons name processes and
 * calls that exist in each scenario; the inspector's tables exist after a run (on PGlite).
 */
import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { callAfter, messageToRedeliver, workerUpAt } from '../components/lab/actions';
import { callKindOf, canRedeliver, providerOf, toLabScenario, workersOf } from '../components/lab/lab-scenario';
import { Ledger } from '../components/lab/view/Ledger';
import { formatSimTime } from '../components/lab/view/snapshots';
import { runForLab } from '../simulations/lab-run';
import { runScenario } from '../simulations/run';
import { SCENARIOS, scenarioById } from '../simulations/scenarios/index';
import { openSimDb, replayHint } from './helpers/sim-db';
import type { Fault } from '../simulations/types';

const h = React.createElement;
let sim: Awaited<ReturnType<typeof openSimDb>>;
beforeAll(async () => {
  sim = await openSimDb();
});
afterAll(() => sim.close());

async function ledgerHtml(id: string, variant: 'starter' | 'solution') {
  const scenario = scenarioById(id);
  const run = await runForLab(sim.db, { scenario, code: scenario.variants[variant].code, variant, seed: scenario.demo.seed });
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
  });

  test('business-date-reminder: reminders are counted per business date', async () => {
    const bad = await ledgerHtml('business-date-reminder', 'starter');
    expect(bad.html).toContain('2 reminders for order 1042 on 2026-01-05');
    expect(bad.html).toContain('duplicate');
    const good = await ledgerHtml('business-date-reminder', 'solution');
    expect(good.html).toContain('1 reminder for order 1042 on 2026-01-05');
    expect(good.html).toContain('1 reminder for order 1042 on 2026-01-06');
    expect(good.html).not.toContain('duplicate');
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
    expect(formatSimTime(25 * 3_600_000 + 3_000)).toBe('25 h 0 min 3.0 s');
  });
});

describe('fault buttons of every scenario', () => {
  test.each(SCENARIOS.map((s) => [s.id, s] as const))('%s: crash targets and the lost call exist in the world', async (_id, scenario) => {
    const lab = toLabScenario(scenario);
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 });
    const actorsSeen = new Set(r.trace.flatMap((e) => [e.actor, e.target]));
    for (const w of workersOf(lab)) expect(actorsSeen.has(w), `${w} never acts (${replayHint(r)})`).toBe(true);
    const call = callKindOf(lab);
    if (call) expect(r.trace.some((e) => e.type === 'call' && e.target === providerOf(call)), `${call} is never called (${replayHint(r)})`).toBe(true);
  });

  // "Redeliver now" hands the message last received (up to the event on screen) to a second
  // consumer; message ids differ by scenario (m1, evt_1, p1…), so the button must read them from
  // the run, and the injected rerun must really deliver that message twice.
  test.each(SCENARIOS.filter((s) => canRedeliver(toLabScenario(s))).map((s) => [s.id, s] as const))(
    '%s: "Redeliver now" redelivers a message the run really received',
    async (_id, scenario) => {
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1 });
      const firstReceive = r.trace.find((e) => e.type === 'receive' && e.data)!;
      expect(firstReceive, `no message was received (${replayHint(r)})`).toBeTruthy();
      const message = messageToRedeliver(r.trace, firstReceive.i);
      expect(message).toBe((firstReceive.data as { messageId: string }).messageId);
      const again = await runScenario(sim.db, {
        scenario,
        code: scenario.variants.starter.code,
        variant: 'starter',
        seed: 1,
        choices: r.choices,
        faults: [...r.faults, { kind: 'duplicate-delivery', message: message! }],
      });
      expect(
        again.trace.some((e) => e.type === 'receive' && e.fault === 'duplicate-delivery'),
        `injecting a duplicate of ${message} changed nothing (${replayHint(again)})`,
      ).toBe(true);
    },
  );

  test('the message to redeliver is the last received up to the selected event, else the first', () => {
    const ev = (i: number, id: string) => ({ i, t: 0, step: i, actor: 'queue', type: 'receive' as const, text: '', data: { messageId: id, attempt: 1, body: null } });
    const trace = [ev(2, 'p1'), ev(5, 'p2')];
    expect(messageToRedeliver(trace, 0)).toBe('p1');
    expect(messageToRedeliver(trace, 4)).toBe('p1');
    expect(messageToRedeliver(trace, 9)).toBe('p2');
    expect(messageToRedeliver([], 3)).toBeNull();
  });
});

describe('fault buttons are offered only where the fault can happen', () => {
  test('"Crash X now" is enabled exactly where the crash lands, "Lose the next response" wherever a call is still to come (every scenario, every event)', async () => {
    let checked = 0;
    let offered = 0;
    for (const scenario of SCENARIOS) {
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
        if (call) {
          const provider = providerOf(call);
          const sofar = base.trace.filter((x) => x.i <= e.i && x.type === 'call' && x.target === provider).length;
          injected.push({ fault: { kind: 'lose-response', call, nth: sofar + 1 }, predicted: callAfter(base.trace, e.i, provider) });
        }
        for (const { fault, predicted } of injected) {
          // As the lab injects: the same schedule (its choices), the plan plus the fault.
          const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: base.seed, choices: base.choices, faults: [...base.faults, fault], verdictOnly: true });
          const happened = r.faultEvents.at(-1) !== null;
          const why = `${JSON.stringify(fault)} at event ${e.i + 1}: offered ${predicted}, happened ${happened} (${replayHint(r)})`;
          // A crash is offered exactly when it lands. A lost response is never withheld where it could
          // happen; where offered it may still change nothing (its caller crashed before the timeout).
          if (fault.kind === 'crash') expect(happened, why).toBe(predicted);
          else if (!predicted) expect(happened, why).toBe(false);
          checked++;
          if (predicted) offered++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
    expect(offered).toBeGreaterThan(50);
    expect(checked - offered).toBeGreaterThan(50);
  }, 600_000);
});
