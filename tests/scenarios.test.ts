/**
 * Every scenario in both directions: the starter really breaks its invariant under its
 * demonstration plan, and the solution really holds there and across an explored budget of
 * random fault plans and interleavings. If the simulator stopped injecting faults, the first half
 * fails; if it injected faults no correct design survives, the second half fails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCENARIO_CATALOG } from '../simulations/catalog';
import { explore, runScenario } from '../simulations/run';
import { SCENARIOS } from '../simulations/scenarios/index';
import type { PgliteSimDatabase } from '../simulations/sim-database';
import { openSimDb, replayHint } from './helpers/sim-db';

const EXPLORED_RUNS = Number(process.env.EXPLORE_RUNS ?? 60);

/** The invariant each starter must break under its demonstration plan. */
const STARTER_BREAKS: Record<string, string> = {
  'receipt-redelivery': 'at-most-one-receipt',
  'replay-safety': 'no-double-charge',
  'moving-answers': 'one-consistent-answer',
  'batch-credits': 'no-item-billed-twice',
  'concurrent-redelivery': 'at-most-one-receipt',
  'lease-expiry': 'every-order-receipted',
  'crash-after-send': 'at-most-one-receipt',
  'random-key-on-retry': 'no-double-charge',
  'ambiguous-timeout-charge': 'no-double-charge',
  'business-date-reminder': 'one-reminder-per-date',
  'human-rerun': 'no-double-charge',
  'webhook-dedupe': 'at-most-one-receipt',
  'dual-write': 'nothing-lost',
  'relay-crash': 'at-most-one-receipt',
  'relay-concurrency': 'each-row-once',
};

let sim: Awaited<ReturnType<typeof openSimDb>>;
let db: PgliteSimDatabase;
beforeAll(async () => {
  sim = await openSimDb();
  db = sim.db;
});
afterAll(() => sim.close());

test('the catalog and the engine list the same scenarios in the same order', () => {
  expect(SCENARIOS.map((s) => [s.id, s.title])).toEqual(SCENARIO_CATALOG.map((s) => [s.id, s.title]));
  expect(Object.keys(STARTER_BREAKS).sort()).toEqual(SCENARIOS.map((s) => s.id).sort());
});

describe.each(SCENARIOS.map((s) => [s.id, s] as const))('%s', (_id, scenario) => {
  test(`starter breaks ${STARTER_BREAKS[scenario.id]} under the demonstration plan (seed ${scenario.demo.seed})`, async () => {
    const r = await runScenario(db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
    const broken = r.invariants.filter((i) => !i.held).map((i) => i.id);
    expect(broken, replayHint(r)).toContain(STARTER_BREAKS[scenario.id]);
    expect(r.verdict).toBe('violated');
  });

  test('solution holds under the demonstration plan', async () => {
    const r = await runScenario(db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: scenario.demo.seed });
    expect(r.invariants.filter((i) => !i.held), replayHint(r)).toEqual([]);
    expect(r.codeErrors, replayHint(r)).toEqual([]);
    expect(r.ending).toBe('finished');
  });

  test(`solution holds across ${EXPLORED_RUNS} explored schedules`, async () => {
    const e = await explore(db, { scenario, code: scenario.variants.solution.code, variant: 'solution', runs: EXPLORED_RUNS });
    const cx = e.counterexample;
    expect(e.violations, cx ? replayHint({ scenario: scenario.id, variant: 'solution', ...cx }) + ` — ${cx.invariant}: ${cx.detail}` : '').toBe(0);
    expect(e.runs).toBe(EXPLORED_RUNS);
  });

  test('starter is caught by the explorer, with a replayable counterexample', async () => {
    const e = await explore(db, { scenario, code: scenario.variants.starter.code, variant: 'starter', runs: 30 });
    expect(e.violations).toBeGreaterThan(0);
    const cx = e.counterexample!;
    expect(cx).not.toBeNull();
    const replay = await runScenario(db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: cx.seed, faults: cx.faults, choices: cx.choices });
    expect(replay.invariants.find((i) => i.id === cx.invariant)?.held, replayHint(replay)).toBe(false);
    expect(replay.steps).toBe(cx.steps);
  });
});

test('dual-write: publishing first announces an order that never committed (phantom)', async () => {
  const scenario = SCENARIOS.find((s) => s.id === 'dual-write')!;
  const publishFirst = `import type { Env } from 'effectively-once';
export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const { rows: [next] } = await env.db.query<{ id: number }>("SELECT nextval('orders_id_seq')::int AS id");
  await env.queue.publish('order-placed', { orderId: next.id });
  await env.db.query('INSERT INTO orders (id, customer_id, total_cents) VALUES ($1, $2, $3)', [next.id, order.customerId, order.totalCents]);
  return next.id;
}`;
  const r = await runScenario(db, { scenario, code: publishFirst, variant: 'publish-first', seed: 1, faults: [{ kind: 'crash', process: 'shop', after: 'queue.publish' }] });
  expect(r.invariants.find((i) => i.id === 'no-phantom')?.held, replayHint(r)).toBe(false);
  expect(r.invariants.find((i) => i.id === 'nothing-lost')?.held).toBe(true);
});
