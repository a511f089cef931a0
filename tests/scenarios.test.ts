/**
 * Every scenario in both directions: the starter really breaks its invariant under its
 * demonstration plan, and the solution really holds there and across an explored budget of
 * random fault plans and interleavings. If the simulator stopped injecting faults, the first half
 * fails; if it injected faults no correct design survives, the second half fails.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { SCENARIO_CATALOG, SCENARIO_IDS } from '../simulations/lessons/catalog';
import { SIM_EPOCH_MS, formatSimMoment } from '../simulations/engine/sim-time';
import { explore, runScenario } from '../simulations/run/run';
import { LESSONS } from '../simulations/lessons/index';
import type { Fault } from '../simulations/engine/types';
import { replayHint, simDbPerFile } from './helpers/sim-db';

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
  'webhook-dedupe': 'at-most-one-email',
  'dual-write': 'nothing-lost',
  'relay-crash': 'at-most-one-receipt',
  'relay-concurrency': 'each-row-once',
};

const sim = simDbPerFile();

test('the catalog and the engine list the same scenarios in the same order', () => {
  expect(LESSONS.map((s) => [s.id, s.title])).toEqual(SCENARIO_CATALOG.map((s) => [s.id, s.title]));
  expect(Object.keys(STARTER_BREAKS).sort()).toEqual(LESSONS.map((s) => s.id).sort());
  // And the ids alone, which the database provider reads to tell a lab from a mistyped address.
  expect([...SCENARIO_IDS]).toEqual(SCENARIO_CATALOG.map((s) => s.id));
});

describe.each(LESSONS.map((s) => [s.id, s] as const))('%s', (_id, scenario) => {
  test(`starter breaks ${STARTER_BREAKS[scenario.id]} under the demonstration plan (seed ${scenario.demo.seed})`, async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
    const broken = r.invariants.filter((i) => !i.held).map((i) => i.id);
    expect(broken, replayHint(r)).toContain(STARTER_BREAKS[scenario.id]);
    expect(r.verdict).toBe('violated');
  });

  test('solution holds under the demonstration plan', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: scenario.demo.seed });
    expect(r.invariants.filter((i) => !i.held), replayHint(r)).toEqual([]);
    expect(r.codeErrors, replayHint(r)).toEqual([]);
    expect(r.ending).toBe('finished');
  });

  test(`solution holds across ${EXPLORED_RUNS} explored schedules`, async () => {
    const e = await explore(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', runs: EXPLORED_RUNS });
    const cx = e.counterexample;
    expect(e.violations, cx ? replayHint({ scenario: scenario.id, variant: 'solution', ...cx }) + ` — ${cx.invariant}: ${cx.detail}` : '').toBe(0);
    expect(e.runs).toBe(EXPLORED_RUNS);
  });

  test('starter is caught by the explorer, with a replayable counterexample', async () => {
    const e = await explore(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', runs: 30 });
    expect(e.violations).toBeGreaterThan(0);
    const cx = e.counterexample!;
    expect(cx).not.toBeNull();
    const replay = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: cx.seed, faults: cx.faults, choices: cx.choices });
    expect(replay.invariants.find((i) => i.id === cx.invariant)?.held, replayHint(replay)).toBe(false);
    expect(replay.steps).toBe(cx.steps);
  });
});

test('dual-write demonstration: the crash is followed by a retried checkout, so both variants really place an order', async () => {
  const scenario = LESSONS.find((s) => s.id === 'dual-write')!;
  const published = (r: Awaited<ReturnType<typeof runScenario>>) =>
    r.ledger.published.filter((p) => p.topic === 'order-placed').map((p) => ({ orderId: (p.body as { orderId: number }).orderId, by: p.by }));

  const starter = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
  // Order 1 committed before the crash and was never announced; the retry saved the purchase again as order 2.
  expect((await sim.db.inspect('SELECT id FROM orders ORDER BY id')).map((r) => Number(r.id)), replayHint(starter)).toEqual([1, 2]);
  expect(published(starter)).toEqual([{ orderId: 2, by: 'shop' }]);
  const lost = starter.invariants.find((i) => i.id === 'nothing-lost')!;
  expect(lost.held).toBe(false);
  expect(lost.detail).toMatch(/^order 1 committed, but no "order-placed" message was ever published.*saved the purchase again as order 2.*2 order rows/);

  const solution = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: scenario.demo.seed });
  // The crash lands after the order INSERT, inside the open transaction: the trace shows that row
  // written (order 1) and then rolled back, not the rollback of an empty transaction.
  const shop = solution.trace.filter((e) => e.actor === 'shop');
  const insert = shop.findIndex((e) => e.type === 'db' && /^INSERT INTO orders/.test((e.data as { sql?: string } | undefined)?.sql ?? ''));
  expect(insert, replayHint(solution)).toBeGreaterThanOrEqual(0);
  expect((shop[insert].data as { rows: { id: number }[] }).rows.map((r) => Number(r.id))).toEqual([1]);
  expect(shop.slice(0, insert).some((e) => e.type === 'db' && (e.data as { sql?: string }).sql === 'BEGIN'), 'the INSERT ran inside a transaction').toBe(true);
  expect(shop[insert + 1]?.type).toBe('crash');
  expect(shop[insert + 2]?.type, 'the dropped connection rolled the order row back').toBe('rollback');
  expect(shop.some((e) => e.type === 'restart'), 'the shop restarted and retried').toBe(true);
  // Sequences are not transactional: the rolled-back INSERT used id 1, so the retry commits order 2.
  expect((await sim.db.inspect('SELECT id FROM orders ORDER BY id')).map((r) => Number(r.id)), replayHint(solution)).toEqual([2]);
  const outbox = await sim.db.inspect('SELECT payload, published_at FROM outbox');
  expect(outbox).toHaveLength(1);
  expect(outbox[0].published_at, 'the relay marked its row published').not.toBeNull();
  expect(published(solution)).toEqual([{ orderId: 2, by: 'relay-1' }]);
  expect(solution.invariants.find((i) => i.id === 'nothing-lost')!.detail).toBe(
    "the shop's crash rolled back its open transaction, and order 1 with it (no order, no message); the checkout was retried and order 2 committed; relay-1 published it",
  );
});

test('dual-write: publishing first announces an order that never committed (phantom)', async () => {
  const scenario = LESSONS.find((s) => s.id === 'dual-write')!;
  const publishFirst = `import type { Env } from 'effectively-once';
export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {
  const { rows: [next] } = await env.db.query<{ id: number }>("SELECT nextval('orders_id_seq')::int AS id");
  await env.queue.publish('order-placed', { orderId: next.id });
  await env.db.query('INSERT INTO orders (id, customer_id, total_cents) VALUES ($1, $2, $3)', [next.id, order.customerId, order.totalCents]);
  return next.id;
}`;
  const r = await runScenario(sim.db, { scenario, code: publishFirst, variant: 'publish-first', seed: 1, faults: [{ kind: 'crash', process: 'shop', after: 'queue.publish' }] });
  expect(r.invariants.find((i) => i.id === 'no-phantom')?.held, replayHint(r)).toBe(false);
  expect(r.invariants.find((i) => i.id === 'nothing-lost')?.held).toBe(true);
});

test("an invariant's evidence names a moment as the ledger and the event log do (never \"25 h 0 min 0.0 s\" beside \"1 day 1 h\")", async () => {
  const scenario = LESSONS.find((s) => s.id === 'ambiguous-timeout-charge')!;
  const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed, faults: scenario.demo.faults });
  const twice = r.invariants.find((i) => i.id === 'no-double-charge')!;
  expect(twice.held, replayHint(r)).toBe(false);
  const late = r.ledger.charges.find((c) => c.orderId === 2077 && c.atMs >= 3_600_000)!;
  expect(late, 'a charge a day later').toBeDefined();
  expect(twice.detail).toContain(`at ${formatSimMoment(late.atMs)}`);
  // Past an hour it gives the wall clock too, as the brief says "the next day".
  expect(twice.detail).toMatch(/ \(Jan 6, \d\d:\d\d(:\d\d)?\)/);
  expect(twice.detail).not.toMatch(/\bday\b/);
});

test('code that does nothing passes no scenario: every one has an invariant for the work being done', async () => {
  const passed: string[] = [];
  for (const scenario of LESSONS) {
    for (const body of ['return;', "return 'ack';"]) {
      const code = `export async function ${scenario.entry}(...args: unknown[]) { ${body} }`;
      const r = await runScenario(sim.db, { scenario, code, variant: 'do-nothing', seed: scenario.demo.seed, faults: scenario.demo.faults });
      if (r.verdict !== 'violated') passed.push(`${scenario.id} (${body}): ${r.verdict}; ${replayHint(r)}`);
    }
  }
  expect(passed).toEqual([]);
});

test('dual-write: a checkout that confirms an order it never saved is caught (no COMMIT, or no write at all)', async () => {
  // Neither may pass every invariant on "0 committed orders, so nothing to publish".
  const scenario = LESSONS.find((s) => s.id === 'dual-write')!;
  const head = `import type { Env } from 'effectively-once';
export async function placeOrder(order: { customerId: string; totalCents: number }, env: Env) {`;
  const noCommit = `${head}
  const client = await env.db.connect();
  await client.query('BEGIN');
  const { rows } = await client.query<{ id: number }>('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [order.customerId, order.totalCents]);
  await client.query("INSERT INTO outbox (topic, payload) VALUES ('order-placed', $1)", [JSON.stringify({ orderId: rows[0].id })]);
  return rows[0].id;
}`;
  const noWrite = `${head}
  return 42;
}`;
  const noWriteNoId = `${head}
  return;
}`;
  for (const [name, code, detail] of [
    ['no-commit', noCommit, /the checkout confirmed order 2 to the customer, but order 2 is not in the database/],
    ['no-write', noWrite, /the checkout confirmed order 42 to the customer, but order 42 is not in the database/],
    ['no-write-no-id', noWriteNoId, /returned undefined without an error, so the customer saw a confirmation, but no order was saved/],
  ] as const) {
    const r = await runScenario(sim.db, { scenario, code, variant: name, seed: 1, faults: scenario.demo.faults });
    const inv = r.invariants.find((i) => i.id === 'confirmed-saved')!;
    expect(inv.held, `${name}: ${replayHint(r)}`).toBe(false);
    expect(inv.detail).toMatch(detail);
    expect(r.trace[inv.step!]?.text, name).toMatch(/^shop: order .* placed$/);
  }
  // The starter loses an order, but the one it confirmed is saved: this invariant holds there.
  const starter = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1, faults: scenario.demo.faults });
  expect(starter.invariants.find((i) => i.id === 'confirmed-saved')?.held, replayHint(starter)).toBe(true);
});

describe('relay-concurrency: a republish after a crash is at-least-once, not a race', () => {
  // "Crash relay-2 now" right after it published must not make the solution "violate" "each row
  // published exactly once": lesson 14 teaches that the outbox promises at least once.
  const scenario = LESSONS.find((s) => s.id === 'relay-concurrency')!;
  const crashAfterPublish = [{ kind: 'crash' as const, process: 'relay-2', after: 'queue.publish' as const }];

  test('the solution holds when a relay crashes between publishing and marking, and the detail says why a row went twice', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed, faults: crashAfterPublish });
      const rowOnce = r.invariants.find((i) => i.id === 'each-row-once')!;
      expect(rowOnce.held, replayHint(r)).toBe(true);
      const republished = r.ledger.published.length > 4;
      if (republished) expect(rowOnce.detail, replayHint(r)).toMatch(/again only because its relay crashed before marking it/);
    }
  });

  test('at least one of those runs really does publish a row twice (so the test above tests something)', async () => {
    const twice = [];
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed, faults: crashAfterPublish });
      if (r.ledger.published.length > 4) twice.push(seed);
    }
    expect(twice.length).toBeGreaterThan(0);
  });

  test('the starter still breaks it with no crash at all: two healthy relays publish the same row', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 2, faults: [] });
    const rowOnce = r.invariants.find((i) => i.id === 'each-row-once')!;
    expect(rowOnce.held, replayHint(r)).toBe(false);
    expect(rowOnce.detail).toMatch(/with no crash in between/);
  });
});

test('"Every message is acknowledged" names who acknowledged it, so it does not read as contradicting a failed delivery', async () => {
  // The starter's banner says worker-1's delivery was not acknowledged; beside it, a bare "every
  // message was acknowledged" would read as a contradiction: it names worker-2, who acknowledged it.
  const scenario = LESSONS.find((s) => s.id === 'concurrent-redelivery')!;
  const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 3 });
  expect(r.codeErrors.map((e) => e.process), replayHint(r)).toEqual(['worker-1']);
  const settled = r.invariants.find((i) => i.id === 'messages-settled')!;
  expect(settled).toMatchObject({ held: true, detail: 'every message was acknowledged: m1 by worker-2' });
});

test('"Checkout and the rerun both report the one charge" does not pass when there are several charges', async () => {
  // The starter charges more than once: this invariant must not say Held having checked nothing.
  const scenario = LESSONS.find((s) => s.id === 'ambiguous-timeout-charge')!;
  const r = await runScenario(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: scenario.demo.seed });
  expect(r.ledger.charges.length, replayHint(r)).toBeGreaterThan(1);
  const same = r.invariants.find((i) => i.id === 'same-charge-everywhere')!;
  expect(same.held, replayHint(r)).toBe(false);
  expect(same.detail).toMatch(/there is no one charge to agree on/);
});

describe('random-key-on-retry: on seeds 9, 17, 25, … a dead checkout is started again two minutes later', () => {
  const scenario = LESSONS.find((s) => s.id === 'random-key-on-retry')!;
  const mintedByOwner = readFileSync(new URL('./judge/random-key-on-retry/key-minted-per-claim-owner.ts', import.meta.url), 'utf8');
  const crashAfterCharge: Fault[] = [{ kind: 'crash', process: 'checkout', after: 'payments.charge', nth: 1 }];

  test('the run that takes the expired claim over charges again under a key of its own; the solution holds; the usual 5 s restart hides it', async () => {
    const late = await runScenario(sim.db, { scenario, code: mintedByOwner, variant: 'minted-by-owner', seed: 9, faults: crashAfterCharge });
    expect(late.invariants.find((i) => i.id === 'no-double-charge'), replayHint(late)).toMatchObject({ held: false });
    const restarted = late.trace.filter((e) => e.type === 'restart' && e.actor === 'checkout').map((e) => e.t);
    const crashed = late.trace.find((e) => e.type === 'crash' && e.actor === 'checkout')!.t;
    expect(restarted[0]! - crashed).toBeGreaterThanOrEqual(120_000);
    const solution = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 9, faults: crashAfterCharge });
    expect(solution.verdict, replayHint(solution)).toBe('held');
    const usual = await runScenario(sim.db, { scenario, code: mintedByOwner, variant: 'minted-by-owner', seed: 4, faults: crashAfterCharge });
    expect(usual.invariants.find((i) => i.id === 'no-double-charge'), replayHint(usual)).toMatchObject({ held: true });
  });
});

describe('random-key-on-retry: one checkout process runs both jobs on seeds 5, 13, 21, …', () => {
  const scenario = LESSONS.find((s) => s.id === 'random-key-on-retry')!;
  const keyPerProcess = `
    import type { CheckoutOrder, Env } from 'effectively-once';
    const keys = new Map<string, string>();
    export async function chargeOrder(order: CheckoutOrder, env: Env) {
      if (!keys.has(env.process)) keys.set(env.process, env.random.uuid());
      return env.payments.charge({ orderId: order.id, amountCents: order.totalCents, customer: order.customerId }, { idempotencyKey: keys.get(env.process)! });
    }`;

  test('the checkout process charges order 1043 after 1042, and the solution holds there, crash and all', async () => {
    for (const faults of [[], [{ kind: 'crash' as const, process: 'checkout', after: 'payments.charge' as const, nth: 1 }]]) {
      const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 5, faults });
      expect(r.verdict, replayHint(r)).toBe('held');
      const charged = r.trace.filter((e) => e.type === 'call' && e.actor === 'checkout').map((e) => (e.data as { request?: { orderId?: number } }).request?.orderId);
      expect(charged, replayHint(r)).toContain(1043);
      expect(r.trace.some((e) => e.actor === 'next-order')).toBe(false);
    }
  });

  test('a key kept per process is caught there, and holds where each order has a process of its own', async () => {
    const one = await runScenario(sim.db, { scenario, code: keyPerProcess, variant: 'key-per-process', seed: 5, faults: [] });
    expect(one.verdict, replayHint(one)).toBe('violated');
    const own = await runScenario(sim.db, { scenario, code: keyPerProcess, variant: 'key-per-process', seed: 1, faults: [] });
    expect(own.verdict, replayHint(own)).toBe('held');
  });
});

describe('human-rerun: on seeds 5, 13, 21, … the operator also starts the job 100 ms after the nightly run', () => {
  const scenario = LESSONS.find((s) => s.id === 'human-rerun')!;
  const operatorStarts = (r: Awaited<ReturnType<typeof runScenario>>) =>
    r.trace.filter((e) => e.actor === 'operator' && e.type === 'log').map((e) => formatSimMoment(e.t));

  test('the operator runs the job twice there (at once and the next day), once elsewhere, and the solution holds', async () => {
    const early = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 5, faults: [] });
    expect(early.verdict, replayHint(early)).toBe('held');
    expect(operatorStarts(early)).toEqual([formatSimMoment(100), formatSimMoment(26 * 3_600_000)]);
    const usual = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1, faults: [] });
    expect(operatorStarts(usual)).toEqual([formatSimMoment(26 * 3_600_000)]);
    // The first order's charge claim is the nightly run's while its charge is under way: the early
    // rerun skips it (no receipt from the operator before the charge is confirmed).
    const firstReceipt = early.ledger.emails.find((e) => e.orderId === 3001)!;
    expect(firstReceipt.by, replayHint(early)).toBe('nightly-job');
  });

  test('a claim held by the nightly run taken as done sends a receipt before the charge there', async () => {
    const code = readFileSync(new URL('./judge/human-rerun/held-elsewhere-counts-as-charged.ts', import.meta.url), 'utf8');
    const r = await runScenario(sim.db, { scenario, code, variant: 'held-elsewhere', seed: 5, faults: [] });
    expect(r.invariants.find((i) => i.id === 'receipt-after-charge'), replayHint(r)).toMatchObject({ held: false });
    const usual = await runScenario(sim.db, { scenario, code, variant: 'held-elsewhere', seed: 1, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('business-date-reminder: on seeds 5, 13, 21, … the scheduler fires again a week, a month and a year later', () => {
  const scenario = LESSONS.find((s) => s.id === 'business-date-reminder')!;
  const dayOfMonth = readFileSync(new URL('./judge/business-date-reminder/key-day-of-month.ts', import.meta.url), 'utf8');
  const weekday = readFileSync(new URL('./judge/business-date-reminder/key-weekday.ts', import.meta.url), 'utf8');
  const monthAndDay = readFileSync(new URL('./judge/business-date-reminder/key-month-and-day.ts', import.meta.url), 'utf8');

  test('the solution sends Monday 12 January its own reminders there; a key with the weekday sends none', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 5, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.ledger.emails.filter((e) => new Date(SIM_EPOCH_MS + e.atMs).toISOString().startsWith('2026-01-12')).map((e) => e.orderId).sort()).toEqual([1042, 1043]);
    const wrong = await runScenario(sim.db, { scenario, code: weekday, variant: 'weekday', seed: 5, faults: [] });
    expect(wrong.invariants.find((i) => i.id === 'reminder-each-due-date'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('2026-01-12') });
    const usual = await runScenario(sim.db, { scenario, code: weekday, variant: 'weekday', seed: 1, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });

  test('the solution sends 5 February its own reminders there; a key with the day of the month sends none', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 5, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.ledger.emails.filter((e) => new Date(SIM_EPOCH_MS + e.atMs).toISOString().startsWith('2026-02-05')).map((e) => e.orderId).sort()).toEqual([1042, 1043]);
    const wrong = await runScenario(sim.db, { scenario, code: dayOfMonth, variant: 'day-of-month', seed: 5, faults: [] });
    expect(wrong.invariants.find((i) => i.id === 'reminder-each-due-date'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('2026-02-05') });
    const usual = await runScenario(sim.db, { scenario, code: dayOfMonth, variant: 'day-of-month', seed: 1, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });

  test('the solution sends 5 January of the next year its own reminders there; a key with the month and day but not the year sends none', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 5, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.ledger.emails.filter((e) => new Date(SIM_EPOCH_MS + e.atMs).toISOString().startsWith('2027-01-05')).map((e) => e.orderId).sort()).toEqual([1042, 1043]);
    const wrong = await runScenario(sim.db, { scenario, code: monthAndDay, variant: 'month-and-day', seed: 5, faults: [] });
    expect(wrong.invariants.find((i) => i.id === 'reminder-each-due-date'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('2027-01-05') });
    const usual = await runScenario(sim.db, { scenario, code: monthAndDay, variant: 'month-and-day', seed: 1, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('business-date-reminder: on seeds 9, 17, 25, … a reminder that fails comes back the next morning', () => {
  const scenario = LESSONS.find((s) => s.id === 'business-date-reminder')!;
  const minusGrace = readFileSync(new URL('./judge/business-date-reminder/date-from-attempt-minus-grace.ts', import.meta.url), 'utf8');
  const lostResponse = [{ kind: 'lose-response' as const, call: 'email.send' as const, nth: 1 }];

  test('the solution sends that reminder once, 23 h late; a date taken from the attempt files it under the next day', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 9, faults: lostResponse });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.trace.some((e) => e.type === 'receive' && (e.data as { attempt?: number } | undefined)?.attempt === 2 && e.t >= 23 * 3_600_000 && e.t < 24 * 3_600_000), replayHint(r)).toBe(true);
    const wrong = await runScenario(sim.db, { scenario, code: minusGrace, variant: 'minus-grace', seed: 9, faults: lostResponse });
    expect(wrong.verdict, replayHint(wrong)).toBe('violated');
    // Seed 1 keeps the 90 s redelivery: there the same code holds.
    const usual = await runScenario(sim.db, { scenario, code: minusGrace, variant: 'minus-grace', seed: 1, faults: lostResponse });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('crash-after-send: on seeds 5, 9, 13, … an unacknowledged message comes back 23 h later', () => {
  const scenario = LESSONS.find((s) => s.id === 'crash-after-send')!;
  const kolkata = readFileSync(new URL('./judge/crash-after-send/provider-key-kolkata-date.ts', import.meta.url), 'utf8');
  const lostResponse = [{ kind: 'lose-response' as const, call: 'email.send' as const, nth: 1 }];

  test('the solution holds inside the provider\'s 24 h memory of keys; a provider key with the date in Kolkata sends twice', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 5, faults: lostResponse });
    expect(r.verdict, replayHint(r)).toBe('held');
    const wrong = await runScenario(sim.db, { scenario, code: kolkata, variant: 'kolkata', seed: 5, faults: lostResponse });
    expect(wrong.invariants.find((i) => i.id === 'at-most-one-receipt'), replayHint(wrong)).toMatchObject({ held: false });
    const usual = await runScenario(sim.db, { scenario, code: kolkata, variant: 'kolkata', seed: 1, faults: lostResponse });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('relay-crash: on even seeds worker-1 does not come back from its crash, and worker-2 comes up 10 s in', () => {
  const scenario = LESSONS.find((s) => s.id === 'relay-crash')!;
  const workerName = readFileSync(new URL('./judge/relay-crash/provider-key-with-worker-name.ts', import.meta.url), 'utf8');
  const crashAfterSend = [{ kind: 'crash' as const, process: 'worker-1', after: 'email.send' as const }];

  test('worker-2 finishes what worker-1 began; a provider key with the worker\'s name sends a second receipt', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 4, faults: crashAfterSend });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.trace.filter((e) => e.actor === 'worker-1' && e.type === 'restart'), replayHint(r)).toEqual([]);
    expect(r.ledger.emails.every((e) => e.by === 'worker-1' || e.atMs >= 10_000), replayHint(r)).toBe(true);
    const wrong = await runScenario(sim.db, { scenario, code: workerName, variant: 'worker-name', seed: 4, faults: crashAfterSend });
    expect(wrong.invariants.find((i) => i.id === 'at-most-one-receipt'), replayHint(wrong)).toMatchObject({ held: false });
    const single = await runScenario(sim.db, { scenario, code: workerName, variant: 'worker-name', seed: 1, faults: crashAfterSend });
    expect(single.trace.some((e) => e.actor === 'worker-2'), replayHint(single)).toBe(false);
  });
});

describe('batch-credits: on seeds 3, 7, 11, … the last payload is the third one\'s text under the rotated secret', () => {
  const scenario = LESSONS.find((s) => s.id === 'batch-credits')!;
  const byText = readFileSync(new URL('./judge/batch-credits/outputs-by-input-text.ts', import.meta.url), 'utf8');

  test('the solution signs each under its own secret; results kept by the text alone hand the last one the third\'s signature', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 3, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
    const wrong = await runScenario(sim.db, { scenario, code: byText, variant: 'by-text', seed: 3, faults: [] });
    expect(wrong.invariants.find((i) => i.id === 'every-item-transformed'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('result 9') });
    const usual = await runScenario(sim.db, { scenario, code: byText, variant: 'by-text', seed: 1, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('batch-credits: on seeds 4, 12, 20, … the last payload is the fourth one again', () => {
  const scenario = LESSONS.find((s) => s.id === 'batch-credits')!;
  const byEqualItem = readFileSync(new URL('./judge/batch-credits/result-to-first-equal-item.ts', import.meta.url), 'utf8');

  test('the solution signs both copies, a credit each; answers put back on the first equal item leave the last index unsigned', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 4, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
    const credits = r.ledger.credits.filter((c) => c.kind === 'transform');
    expect(credits.length, replayHint(r)).toBe(10);
    expect(new Set(credits.map((c) => c.item)).size, replayHint(r)).toBe(9);
    const wrong = await runScenario(sim.db, { scenario, code: byEqualItem, variant: 'by-equal-item', seed: 4, faults: [] });
    expect(wrong.invariants.find((i) => i.id === 'no-item-billed-twice'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('order-1045:charge') });
    const usual = await runScenario(sim.db, { scenario, code: byEqualItem, variant: 'by-equal-item', seed: 8, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('human-rerun: on seeds 3, 11, 19, … the nightly run falls on the last evening of January', () => {
  const scenario = LESSONS.find((s) => s.id === 'human-rerun')!;
  const byMonth = readFileSync(new URL('./judge/human-rerun/key-order-and-billing-month.ts', import.meta.url), 'utf8');
  const chargeDays = (r: Awaited<ReturnType<typeof runScenario>>) => r.trace.filter((e) => e.type === 'call' && e.call === 'payments.charge').map((e) => new Date(SIM_EPOCH_MS + e.t).toISOString().slice(0, 10));

  test('the solution charges each order once across the month; keys with the billing month charge them again in February', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 3, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(new Set(chargeDays(r)), replayHint(r)).toEqual(new Set(['2026-01-31']));
    const wrong = await runScenario(sim.db, { scenario, code: byMonth, variant: 'by-month', seed: 3, faults: [] });
    expect(wrong.invariants.find((i) => i.id === 'no-double-charge'), replayHint(wrong)).toMatchObject({ held: false });
    expect(chargeDays(wrong), replayHint(wrong)).toContain('2026-02-02');
    const usual = await runScenario(sim.db, { scenario, code: byMonth, variant: 'by-month', seed: 1, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('webhook-dedupe: on seeds 6, 14, 22, … the handlers come up at 23:59:30 UTC', () => {
  const scenario = LESSONS.find((s) => s.id === 'webhook-dedupe')!;
  const byDay = readFileSync(new URL('./judge/webhook-dedupe/key-event-and-received-day.ts', import.meta.url), 'utf8');
  // handler-1 dies right after the e-mail went: the event comes back 30 s later, after midnight.
  const crash: Fault[] = [{ kind: 'crash', process: 'handler-1', after: 'email.send', nth: 1 }];

  test('the solution sends one e-mail across midnight; a key with the day the delivery arrived sends a second', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 6, faults: crash });
    expect(r.verdict, replayHint(r)).toBe('held');
    const days = r.trace.filter((e) => e.type === 'receive').map((e) => new Date(SIM_EPOCH_MS + e.t).toISOString().slice(0, 10));
    expect(new Set(days), replayHint(r)).toEqual(new Set(['2026-05-31', '2026-06-01']));
    const wrong = await runScenario(sim.db, { scenario, code: byDay, variant: 'by-day', seed: 6, faults: crash });
    expect(wrong.invariants.find((i) => i.id === 'at-most-one-email'), replayHint(wrong)).toMatchObject({ held: false });
    const usual = await runScenario(sim.db, { scenario, code: byDay, variant: 'by-day', seed: 2, faults: crash });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe("human-rerun: on seeds 4, 8, 12, … the operator's rerun lists the orders the other way round", () => {
  const scenario = LESSONS.find((s) => s.id === 'human-rerun')!;
  const byLine = readFileSync(new URL('./judge/human-rerun/keys-by-line-number.ts', import.meta.url), 'utf8');
  // The nightly job dies after its third statement: the rerun finishes what it left.
  const crash = [{ kind: 'crash' as const, process: 'nightly-job', after: 'db' as const, nth: 3 }];
  const chargedOrders = (r: Awaited<ReturnType<typeof runScenario>>) => r.ledger.charges.map((c) => c.orderId).sort();

  test('the solution bills each order once; keys naming the line bill one order twice and another never', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 24, faults: crash });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(chargedOrders(r), replayHint(r)).toEqual([3001, 3002, 3003]);
    const operator = r.trace.filter((e) => e.actor === 'operator' && e.type === 'call' && e.call === 'payments.charge').map((e) => (e.data as { request: { orderId: number } }).request.orderId);
    expect(operator[0], `the rerun starts from the last order: ${replayHint(r)}`).toBe(3003);
    const wrong = await runScenario(sim.db, { scenario, code: byLine, variant: 'by-line', seed: 24, faults: crash });
    expect(wrong.invariants.find((i) => i.id === 'no-double-charge'), replayHint(wrong)).toMatchObject({ held: false });
    // Seed 1 keeps the list in its order: there the same code holds.
    const usual = await runScenario(sim.db, { scenario, code: byLine, variant: 'by-line', seed: 1, faults: crash });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe("replay-safety: on seeds 4, 8, 12, … Ada's next order, at the same price, ships ten minutes later", () => {
  const scenario = LESSONS.find((s) => s.id === 'replay-safety')!;
  const byCustomer = readFileSync(new URL('./judge/replay-safety/charge-key-customer-and-amount.ts', import.meta.url), 'utf8');

  test('the solution charges and e-mails both orders once; a charge key on the customer and the amount never charges the second', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 4, faults: [] });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.ledger.charges.map((c) => c.orderId).sort(), replayHint(r)).toEqual([1042, 1043]);
    expect(r.ledger.emails.map((e) => e.orderId).sort(), replayHint(r)).toEqual([1042, 1043]);
    expect(r.trace.some((e) => e.type === 'start' && e.actor === 'first-run-1043'), replayHint(r)).toBe(true);
    const wrong = await runScenario(sim.db, { scenario, code: byCustomer, variant: 'by-customer', seed: 4, faults: [] });
    expect(wrong.invariants.find((i) => i.id === 'every-effect-applied'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('the card was never charged (order 1043)') });
    // Seed 1 has one order: there the same code holds.
    const usual = await runScenario(sim.db, { scenario, code: byCustomer, variant: 'by-customer', seed: 1, faults: [] });
    expect(usual.verdict, replayHint(usual)).toBe('held');
  });
});

describe('crash-after-send: on seeds 3, 7, 11, … the workers come up 30 s before Sunday 31 May ends, in UTC, New York or Anchorage', () => {
  const scenario = LESSONS.find((s) => s.id === 'crash-after-send')!;
  const crashAfterSend: Fault[] = [{ kind: 'crash', process: 'worker-1', after: 'email.send' }];
  const monthKey = readFileSync(new URL('./judge/crash-after-send/provider-key-billing-month.ts', import.meta.url), 'utf8');
  const anchorageKey = readFileSync(new URL('./judge/crash-after-send/provider-key-anchorage-date.ts', import.meta.url), 'utf8');

  test.each([
    [3, '2026-05-31T23:59:30'],
    [7, '2026-06-01T03:59:30'],
    [15, '2026-06-01T07:59:30'],
  ])('seed %i sends the first receipt at %s UTC, and the solution holds across the turn', async (seed, at) => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed, faults: crashAfterSend });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(new Date(SIM_EPOCH_MS + r.ledger.emails[0]!.atMs).toISOString(), replayHint(r)).toMatch(new RegExp(`^${at}`));
  });

  test('a provider key with the month sends again after the month turns; one with the date in Anchorage after its midnight', async () => {
    // The first send's response is lost, whichever worker sends it: the redelivery 30 s later is in February.
    const lost: Fault[] = [{ kind: 'lose-response', call: 'email.send', nth: 1 }];
    const month = await runScenario(sim.db, { scenario, code: monthKey, variant: 'month', seed: 3, faults: lost });
    expect(month.invariants.find((i) => i.id === 'at-most-one-receipt'), replayHint(month)).toMatchObject({ held: false });
    const anchorage = await runScenario(sim.db, { scenario, code: anchorageKey, variant: 'anchorage', seed: 15, faults: lost });
    expect(anchorage.invariants.find((i) => i.id === 'at-most-one-receipt'), replayHint(anchorage)).toMatchObject({ held: false });
    // On the UTC seed the date in Anchorage does not turn (it is 15:59:30 there).
    const utc = await runScenario(sim.db, { scenario, code: anchorageKey, variant: 'anchorage', seed: 3, faults: lost });
    expect(utc.verdict, replayHint(utc)).toBe('held');
  });
});

describe('business-date-reminder: on seeds 4, 8, 12, … worker-1 runs alone', () => {
  const scenario = LESSONS.find((s) => s.id === 'business-date-reminder')!;
  const cache = readFileSync(new URL('./judge/business-date-reminder/sent-cache-set-at-claim.ts', import.meta.url), 'utf8');
  const lost: Fault[] = [{ kind: 'lose-request', call: 'email.send', nth: 1 }];

  test('a reminder worker-1 failed comes back to it: the solution sends it, a cache set at the claim never does', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 4, faults: lost });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.trace.some((e) => e.type === 'start' && e.actor === 'worker-2'), replayHint(r)).toBe(false);
    const wrong = await runScenario(sim.db, { scenario, code: cache, variant: 'cache', seed: 4, faults: lost });
    expect(wrong.invariants.find((i) => i.id === 'reminder-each-due-date'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('2026-01-05') });
    // On seed 1 the failed reminder goes to worker-2, whose memory is empty, and is sent.
    const two = await runScenario(sim.db, { scenario, code: cache, variant: 'cache', seed: 1, faults: lost });
    expect(two.verdict, replayHint(two)).toBe('held');
  });
});

describe('replay-safety: on seeds 5, 9, 13, … the event comes a third time, an hour after the first', () => {
  const scenario = LESSONS.find((s) => s.id === 'replay-safety')!;
  const skipped = readFileSync(new URL('./judge/replay-safety/email-complete-skipped-when-replayed.ts', import.meta.url), 'utf8');
  const crash: Fault[] = [{ kind: 'crash', process: 'first-run', after: 'email.send' }];

  test('the solution sends one e-mail over three handlings; an e-mail left claimed after a replayed answer is asked for a third time', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 5, faults: crash });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.trace.some((e) => e.type === 'start' && e.actor === 'replay-2'), replayHint(r)).toBe(true);
    expect(r.ledger.emails.length, replayHint(r)).toBe(1);
    const wrong = await runScenario(sim.db, { scenario, code: skipped, variant: 'skipped', seed: 5, faults: crash });
    expect(wrong.invariants.find((i) => i.id === 'own-record'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('replay had been told') });
  });
});

describe('ambiguous-timeout-charge: on even seeds the job queue retries a checkout that did not return, 15 minutes later', () => {
  const scenario = LESSONS.find((s) => s.id === 'ambiguous-timeout-charge')!;
  const perCall = readFileSync(new URL('./judge/ambiguous-timeout-charge/provider-key-per-call.ts', import.meta.url), 'utf8');
  const crash: Fault[] = [{ kind: 'crash', process: 'checkout', after: 'payments.charge', nth: 1 }];

  test('after a crash past the charge the retry gets the first charge back under its key; a key drawn per call charges again', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 2, faults: crash });
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(r.ledger.charges.filter((c) => c.orderId === 2077).length, replayHint(r)).toBe(1);
    expect(r.ledger.replays.some((p) => p.by === 'checkout-2'), replayHint(r)).toBe(true);
    const wrong = await runScenario(sim.db, { scenario, code: perCall, variant: 'per-call', seed: 2, faults: crash });
    expect(wrong.invariants.find((i) => i.id === 'no-double-charge'), replayHint(wrong)).toMatchObject({ held: false, detail: expect.stringContaining('by checkout-2') });
  });

  test('without the retry (odd seeds) the next-day takeover after that crash is the gap no key closes: not counted against the solution', async () => {
    const r = await runScenario(sim.db, { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1, faults: crash });
    expect(r.ledger.charges.filter((c) => c.orderId === 2077).length, replayHint(r)).toBe(2);
    // The run shows the gap (both invariants say so), and Explore counts neither.
    const broken = r.invariants.filter((i) => !i.held);
    expect(broken.map((i) => i.id).sort(), replayHint(r)).toEqual(['no-double-charge', 'same-charge-everywhere']);
    expect(broken.every((i) => i.beyondKeys), replayHint(r)).toBe(true);
  });
});
