/**
 * Faults placed at a moment rather than at a step: a duplicate delivery some simulated seconds
 * after a message's first delivery (to a second consumer while the first holds it, or as a copy
 * after its ack), and an item refused in the middle of a batch. Each is tried both ways: the
 * lesson's solution survives it, and the wrong fix it exists for breaks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import type { Fault } from '../simulations/engine/types';
import { replayHint, simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

const judged = (path: string) => readFileSync(new URL(`./judge/${path}`, import.meta.url), 'utf8');
const held = (r: { invariants: { id: string; held: boolean }[] }, id: string) => r.invariants.find((i) => i.id === id)?.held;

describe('a duplicate delivery at a moment', () => {
  const lease = lessonById('lease-expiry');
  const slowSend: Fault = { kind: 'slow-response', call: 'email.send', ms: 20_000 };

  test('arrives that long after the first delivery, while a slow send still holds the message: a 60 s lease backs it off, a 5 s lease is overtaken', async () => {
    const faults: Fault[] = [slowSend, { kind: 'duplicate-delivery', message: 'm1', afterMs: 15_000 }];
    const good = await runScenario(sim.db, { scenario: lease, code: lease.variants.solution.code, variant: 'solution', seed: 1, faults });
    const dup = good.trace[good.faultEvents[1]!]!;
    expect(dup.type, replayHint(good)).toBe('receive');
    expect(dup.t, replayHint(good)).toBe(15_000);
    expect(dup.text).toMatch(/while another consumer still holds it/);
    expect(good.verdict, replayHint(good)).toBe('held');

    const short = await runScenario(sim.db, { scenario: lease, code: judged('lease-expiry/lease-five-seconds.ts'), variant: 'yours', seed: 1, faults });
    expect(held(short, 'at-most-one-receipt'), replayHint(short)).toBe(false);
  });

  test('after the message was acknowledged, brings it back as a copy that must be acknowledged again: a takeover that spares done rows acks it, one that looks only at the lease sends again', async () => {
    const faults: Fault[] = [{ kind: 'duplicate-delivery', message: 'm1', afterMs: 65_000 }];
    const good = await runScenario(sim.db, { scenario: lease, code: lease.variants.solution.code, variant: 'solution', seed: 1, faults });
    const copy = good.trace[good.faultEvents[0]!]!;
    expect(copy.t, replayHint(good)).toBe(65_000);
    expect(copy.text).toMatch(/after it was acknowledged/);
    const acks = good.trace.filter((e) => e.type === 'ack');
    expect(acks.map((e) => e.t), replayHint(good)).toEqual([200, 65_000]);
    expect(acks.at(-1)!.text).not.toMatch(/already acked/);
    expect(good.verdict, replayHint(good)).toBe('held');

    const bad = await runScenario(sim.db, { scenario: lease, code: judged('lease-expiry/takeover-ignores-done.ts'), variant: 'yours', seed: 1, faults });
    expect(held(bad, 'at-most-one-receipt'), replayHint(bad)).toBe(false);
  });

  test('the run waits for a moment still to come after every message was acknowledged', async () => {
    // The starter claims with DO NOTHING: the copy finds the row done and acks it again.
    const faults: Fault[] = [{ kind: 'duplicate-delivery', message: 'm1', afterMs: 95_000 }];
    const r = await runScenario(sim.db, { scenario: lease, code: lease.variants.starter.code, variant: 'starter', seed: 1, faults });
    expect(r.faultEvents[0], replayHint(r)).not.toBeNull();
    expect(r.durationMs, replayHint(r)).toBeGreaterThanOrEqual(95_000);
    expect(r.trace.filter((e) => e.type === 'ack').map((e) => e.t), replayHint(r)).toEqual([200, 95_000]);
    expect(held(r, 'messages-settled'), replayHint(r)).toBe(true);
  });
});

describe('an item refused in the middle of a batch', () => {
  const batch = lessonById('batch-credits');
  const faults: Fault[] = [{ kind: 'refuse-item', call: 'transform.batch', nth: 1, item: 0 }];

  test('is answered 429 and not billed; the solution resends it by its index, and a fix that appends in arrival order misplaces every signature', async () => {
    const good = await runScenario(sim.db, { scenario: batch, code: batch.variants.solution.code, variant: 'solution', seed: 1, faults });
    const call = good.trace[good.faultEvents[0]!]!;
    expect(call.type, replayHint(good)).toBe('call');
    const first = (call.data as { response: { ok: boolean; code?: number }[] }).response;
    expect(first[0]).toMatchObject({ ok: false, code: 429 });
    expect(first.slice(1, 6).every((r) => r.ok), JSON.stringify(first)).toBe(true);
    expect(good.verdict, replayHint(good)).toBe('held');

    const bad = await runScenario(sim.db, { scenario: batch, code: judged('batch-credits/append-in-arrival-order.ts'), variant: 'yours', seed: 1, faults });
    expect(held(bad, 'every-item-transformed'), replayHint(bad)).toBe(false);
  });
});
