/** Lab runs: snapshots for the inspector never change the run itself. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { changedRows, runForLab, tablesAt } from '../simulations/run/lab-run';
import { openTransactionsAt } from '../simulations/run/snapshots';
import { runScenario } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { openSimDb } from './helpers/sim-db';

let sim: Awaited<ReturnType<typeof openSimDb>>;
beforeAll(async () => {
  sim = await openSimDb();
});
afterAll(() => sim.close());

test('a lab run has the same trace hash as the plain run, and snapshots follow the claim', async () => {
  const scenario = lessonById('receipt-redelivery');
  const req = { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: 1 };
  const plain = await runScenario(sim.db, req);
  const lab = await runForLab(sim.db, req);
  expect(lab.result.traceHash).toBe(plain.traceHash);

  expect(tablesAt(lab, -1).operations).toEqual([]);
  const claimEvent = lab.result.trace.find((e) => e.type === 'db' && /INSERT INTO operations/.test(e.text))!;
  expect(tablesAt(lab, claimEvent.i).operations).toMatchObject([{ state: 'running' }]);
  expect(changedRows(lab, 'operations', claimEvent.i)).toEqual(new Set([0]));
  const end = tablesAt(lab, lab.result.trace.length - 1).operations;
  expect(end).toMatchObject([{ state: 'done' }]);
  // Timestamps arrive as ISO strings on the virtual clock (2026-01-05, not the host's date).
  expect(String(end[0].lease_until)).toMatch(/^2026-01-05T09:01:00/);
});

test("a lease of 'infinity' reaches the inspector as 'infinity', not null", async () => {
  const scenario = lessonById('lease-expiry');
  const lab = await runForLab(sim.db, { scenario, code: scenario.variants.starter.code, variant: 'starter', seed: 1 });
  const end = tablesAt(lab, lab.result.trace.length - 1).operations;
  expect(JSON.parse(JSON.stringify(end))).toMatchObject([{ state: 'running', lease_until: 'infinity' }]);
});

test("code that does not load says so in a fresh tab, even where the lesson's own tables do not exist yet", async () => {
  const fresh = await openSimDb();
  try {
    for (const [id, broken] of [
      ['replay-safety', (code: string) => code.replace(/}\s*$/, '')], // the last brace deleted
      ['moving-answers', (code: string) => code.replace('checkCustomer', 'checkCustomr')], // the export misspelt
    ] as const) {
      const scenario = lessonById(id);
      const lab = await runForLab(fresh.db, { scenario, code: broken(scenario.variants.starter.code), variant: 'learner', seed: 1 });
      expect(lab.result.verdict, id).toBe('error');
      expect(lab.result.error?.message, id).toMatch(/expected|must export a function named checkCustomer/);
      expect(lab.snapshots, id).toHaveLength(1);
    }
  } finally {
    await fresh.close();
  }
});

test('a crash right after a write inside a transaction: the inspector shows the uncommitted row at the write, as uncommitted, and gone at the rollback', async () => {
  const scenario = lessonById('dual-write');
  const req = { scenario, code: scenario.variants.solution.code, variant: 'solution', seed: scenario.demo.seed };
  const plain = await runScenario(sim.db, req);
  const lab = await runForLab(sim.db, req);
  expect(lab.result.traceHash).toBe(plain.traceHash);
  const insert = lab.result.trace.find((e) => e.type === 'db' && /INSERT INTO orders/.test(e.text))!;
  const crash = lab.result.trace[insert.i + 1];
  const rollback = lab.result.trace[insert.i + 2];
  expect([crash.type, rollback.type]).toEqual(['crash', 'rollback']);
  expect(tablesAt(lab, insert.i).orders).toMatchObject([{ customer_id: 'cus_ada', total_cents: 4999 }]);
  expect(openTransactionsAt(lab, insert.i)).toEqual(['shop']);
  expect(tablesAt(lab, rollback.i).orders).toEqual([]);
  expect(openTransactionsAt(lab, rollback.i)).toEqual([]);
  // Snapshots stay in event order.
  const at = lab.snapshots.map((s) => s.atEvent);
  expect(at).toEqual([...at].sort((a, b) => a - b));
  // The retried checkout commits order and message together: once committed, nothing is open.
  const end = lab.result.trace.length - 1;
  expect(tablesAt(lab, end).orders).toHaveLength(1);
  expect(openTransactionsAt(lab, end)).toEqual([]);
});
