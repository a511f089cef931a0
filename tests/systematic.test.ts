/**
 * The systematic pass: the first seeds of an exploration place the lesson's faults at every
 * position (alone, then in pairs) before later seeds draw plans at random, so a wrong fix that
 * breaks only when a fault lands one step later than the menu's own moment is caught by design.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { drawFaults, explore } from '../simulations/run/run';
import { SYSTEMATIC_MAX, systematicPlans } from '../simulations/run/systematic';
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
