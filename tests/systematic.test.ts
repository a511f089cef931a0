/**
 * The systematic pass: the first seeds of an exploration place the lesson's faults at every
 * position (alone, then in pairs) before later seeds draw plans at random, so a wrong fix that
 * breaks only when a fault lands one step later than the menu's own moment is caught by design.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { drawFaults, drawRandomFaults, explore } from '../simulations/run/run';
import { SYSTEMATIC_MAX, systematicPlans } from '../simulations/run/systematic';
import type { Fault } from '../simulations/engine/types';
import { LESSONS, lessonById } from '../simulations/lessons/index';
import { simDbPerFile } from './helpers/sim-db';

const sim = simDbPerFile();

test('every lesson has systematic plans: its menu alone first, each fault also at other positions, then pairs, at most SYSTEMATIC_MAX', () => {
  for (const s of LESSONS) {
    const plans = systematicPlans(s);
    expect(plans.length, s.id).toBeLessThanOrEqual(SYSTEMATIC_MAX);
    expect(plans[0], s.id).toEqual([s.faultMenu[0]]);
    for (const f of s.faultMenu) expect(plans.some((p) => p.length === 1 && JSON.stringify(p[0]) === JSON.stringify(f)), `${s.id}: ${JSON.stringify(f)} alone`).toBe(true);
    const sizes = plans.map((p) => p.length);
    expect(sizes, `${s.id}: singles before pairs`).toEqual([...sizes].sort((a, b) => a - b));
    expect(Math.max(...sizes), s.id).toBeLessThanOrEqual(Math.min(2, s.maxFaults));
    expect(new Set(plans.map((p) => JSON.stringify(p))).size, `${s.id}: no plan twice`).toBe(plans.length);
  }
  // A crash after the first statement is also tried after the second, third and fourth.
  const lease = systematicPlans(lessonById('lease-expiry'));
  for (const nth of [2, 3, 4]) expect(lease).toContainEqual([{ kind: 'crash', process: 'worker-1', after: 'db', nth }]);
});

test('seeds 1… take the systematic plans in order; later seeds draw at random, the same every time', () => {
  const s = lessonById('receipt-redelivery');
  const plans = systematicPlans(s);
  plans.forEach((p, i) => expect(drawFaults(s, i + 1)).toEqual(p));
  const later = plans.length + 7;
  expect(drawFaults(s, later)).toEqual(drawFaults(s, later));
  // A copy: a caller that edits its plan does not edit the next exploration's.
  drawFaults(s, 1).push({ kind: 'duplicate-delivery', message: 'm9' });
  expect(drawFaults(s, 1)).toEqual(plans[0]);
});

test('a crash that lands one statement after the menu’s own moment is caught within the systematic seeds (done marked before the send)', async () => {
  const scenario = lessonById('lease-expiry');
  const code = readFileSync(new URL('./judge/lease-expiry/done-before-send.ts', import.meta.url), 'utf8');
  const runs = systematicPlans(scenario).length;
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs, shrinkBudget: 0 });
  expect(e.violations, `seeds 1–${runs}: replay with npm run sim -- explore lease-expiry --variant tests/judge/lease-expiry/done-before-send.ts --runs ${runs}`).toBeGreaterThan(0);
  expect(e.byInvariant['every-order-receipted']).toBeGreaterThan(0);
}, 300_000);

test('a duplicate is also placed at moments after its first delivery, and a refused item over the batch, the menu’s own moments ranked first', () => {
  const lease = systematicPlans(lessonById('lease-expiry'));
  for (const afterMs of [2_000, 15_000, 45_000, 65_000, 95_000]) expect(lease).toContainEqual([{ kind: 'duplicate-delivery', message: 'm1', afterMs }]);
  const batch = systematicPlans(lessonById('batch-credits'));
  for (const item of [0, 1, 3, 5, 7]) expect(batch).toContainEqual([{ kind: 'refuse-item', call: 'transform.batch', nth: 1, item }]);
  // A placement that is also an entry of the menu is that entry (not a later placement of another),
  // so its pairs are among the first: moving-answers's slow lookup with its duplicate 2 s in.
  const moving = systematicPlans(lessonById('moving-answers'));
  const pair = moving.findIndex((p) => p.length === 2 && p.some((f) => f.kind === 'slow-response') && p.some((f) => f.kind === 'duplicate-delivery' && f.afterMs === 2_000));
  expect(pair).toBeGreaterThan(0);
  const menu = lessonById('moving-answers').faultMenu.length;
  expect(pair).toBeLessThan(moving.findIndex((p) => p.length === 2) + (menu * (menu - 1)) / 2);
  // A menu entry written with nth: undefined is the same fault as nth: 1, so never planned twice.
  const keys = moving.map((p) => JSON.stringify(p.map((f) => ({ ...f, nth: f.kind === 'duplicate-delivery' ? undefined : ((f as { nth?: number }).nth ?? 1) }))));
  expect(new Set(keys).size).toBe(keys.length);
});

test.each([
  ['lease-expiry', 'lease-expiry/lease-one-second.ts', 'at-most-one-receipt'],
  ['lease-expiry', 'lease-expiry/lease-shorter-than-send-timeout.ts', 'at-most-one-receipt'],
  ['moving-answers', 'moving-answers/lease-three-seconds.ts', 'one-consistent-answer'],
  ['lease-expiry', 'lease-expiry/takeover-ignores-done.ts', 'at-most-one-receipt'],
  ['batch-credits', 'batch-credits/append-in-arrival-order.ts', 'every-item-transformed'],
  ['moving-answers', 'moving-answers/check-then-store.ts', 'one-consistent-answer'],
])('a fault placed at a moment catches %s within the systematic seeds: %s', async (lesson, file, invariant) => {
  const scenario = lessonById(lesson);
  const code = readFileSync(new URL(`./judge/${file}`, import.meta.url), 'utf8');
  const runs = systematicPlans(scenario).length;
  const e = await explore(sim.db, { scenario, code, variant: 'yours', runs, shrinkBudget: 0 });
  expect(e.byInvariant[invariant] ?? 0, `seeds 1–${runs}: replay with npm run sim -- explore ${lesson} --variant tests/judge/${file} --runs ${runs}`).toBeGreaterThan(0);
}, 300_000);

test('random plans favour no menu entry: the last of a long menu is drawn as often as the first', () => {
  const faultMenu: Fault[] = Array.from({ length: 16 }, (_, i) => ({ kind: 'duplicate-delivery', message: `m${i}` }));
  const scenario = { ...lessonById('receipt-redelivery'), faultMenu, maxFaults: 3 };
  const drawn = new Array<number>(faultMenu.length).fill(0);
  for (let seed = 1_000; seed < 3_000; seed++) {
    const plan = drawRandomFaults(scenario, seed);
    expect(plan.length).toBeLessThanOrEqual(3);
    // In the menu's order, each entry at most once.
    expect(plan).toEqual(faultMenu.filter((f) => plan.includes(f)));
    for (const f of plan) drawn[faultMenu.indexOf(f)]!++;
  }
  // 2,000 plans of about 3 faults: each entry about 375 times.
  expect(Math.min(...drawn), drawn.join(' ')).toBeGreaterThan(0.75 * Math.max(...drawn));
});

test('a drawn duplicate placed at a moment lands, on about every other draw, at a moment drawn from the seed: 0.5 s to 128 s after the first delivery', () => {
  const faultMenu: Fault[] = [
    { kind: 'duplicate-delivery', message: 'm1', afterMs: 2_000 },
    { kind: 'duplicate-delivery', message: 'm1', afterMs: 65_000 },
    { kind: 'duplicate-delivery', message: 'm1' },
  ];
  const scenario = { ...lessonById('receipt-redelivery'), faultMenu, maxFaults: 3 };
  let kept = 0;
  const moved: number[] = [];
  for (let seed = 1_000; seed < 3_000; seed++) {
    const plan = drawRandomFaults(scenario, seed);
    expect(drawRandomFaults(scenario, seed)).toEqual(plan);
    for (const f of plan) {
      if (f.kind !== 'duplicate-delivery') throw new Error('only duplicates on this menu');
      if (faultMenu.includes(f)) kept += f.afterMs === undefined ? 0 : 1;
      else if (f.afterMs === undefined) throw new Error('a duplicate without a moment keeps its menu entry');
      else moved.push(f.afterMs);
    }
  }
  // About half of the duplicates placed at a moment.
  expect(moved.length).toBeGreaterThan(0.4 * (moved.length + kept));
  expect(kept).toBeGreaterThan(0.4 * (moved.length + kept));
  expect(moved.every((ms) => ms >= 500 && ms < 128_000 && ms % 100 === 0)).toBe(true);
  // Each band of the draw is met: a repeat while a call is out, after a lease, after a visibility timeout.
  for (const [from, to] of [[500, 2_000], [2_000, 8_000], [8_000, 32_000], [32_000, 128_000]]) expect(moved.some((ms) => ms >= from! && ms < to!), `${from}–${to} ms`).toBe(true);
});
