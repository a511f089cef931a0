/**
 * The fail-statement fault: a statement of one process fails with PostgreSQL's deadlock error
 * (40P01), inside the database, so a transaction around it is aborted there — on PGlite and on a
 * real PostgreSQL 15 alike. It is what shows code that swallows a failed statement (a savepoint
 * rolled back to, a `.catch`, an un-awaited query) and commits anyway.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { describeFault, FaultPlanError, parseFaultPlan } from '../simulations/engine/faults';
import { FaultPlan } from '../simulations/engine/fault-plan';
import { PostgresSimDatabase } from '../simulations/db/postgres';
import { runScenario } from '../simulations/run/run';
import { systematicPlans } from '../simulations/run/systematic';
import { LESSONS } from '../simulations/lessons/index';
import type { SimDatabase } from '../simulations/db/port';
import type { Fault } from '../simulations/engine/types';
import { openSimDb, replayHint, throwawayDatabase } from './helpers/sim-db';

describe('as data', () => {
  test('parses, keeps only known fields, and says what it does', () => {
    const [f] = parseFaultPlan([{ kind: 'fail-statement', process: 'shop', nth: 2, sql: 'INSERT INTO outbox', extra: 1 }]);
    expect(f).toEqual({ kind: 'fail-statement', process: 'shop', nth: 2, sql: 'INSERT INTO outbox' });
    expect(describeFault(f!)).toBe('fail the second statement of shop matching INSERT INTO outbox with a deadlock (40P01)');
    expect(describeFault(parseFaultPlan([{ kind: 'fail-statement', process: 'worker-1' }])[0]!)).toBe('fail the first statement of worker-1 with a deadlock (40P01)');
  });

  test('refuses a plan without a process name, or with a bad nth or sql', () => {
    expect(() => parseFaultPlan([{ kind: 'fail-statement' }])).toThrow(FaultPlanError);
    expect(() => parseFaultPlan([{ kind: 'fail-statement', process: 'shop', nth: 0 }])).toThrow(/nth must be a whole number/);
    expect(() => parseFaultPlan([{ kind: 'fail-statement', process: 'shop', sql: '' }])).toThrow(/sql must be the start of a statement/);
  });

  test('counts statements of its process only, never transaction control, and fires once', () => {
    const f: Fault = { kind: 'fail-statement', process: 'shop', nth: 2 };
    const plan = new FaultPlan([f]);
    expect(plan.failsStatement('shop', 'BEGIN', true)).toBeUndefined();
    expect(plan.failsStatement('relay-1', 'SELECT 1', false)).toBeUndefined();
    expect(plan.failsStatement('shop', 'INSERT INTO orders …', false)).toBeUndefined();
    expect(plan.failsStatement('shop', 'INSERT INTO outbox …', false)).toBe(f);
    plan.fired(f, 7);
    expect(plan.failsStatement('shop', 'INSERT INTO outbox …', false)).toBeUndefined();
    expect(plan.events()).toEqual([7]);
  });

  test('with sql, counts only the statements that start with it', () => {
    const f: Fault = { kind: 'fail-statement', process: 'shop', sql: 'insert into outbox' };
    const plan = new FaultPlan([f]);
    expect(plan.failsStatement('shop', 'INSERT INTO orders …', false)).toBeUndefined();
    expect(plan.failsStatement('shop', '  INSERT  INTO outbox (topic) …', false)).toBe(f);
  });

  test('the systematic pass places it at the 1st to 4th statement', () => {
    const plans = systematicPlans({ faultMenu: [{ kind: 'fail-statement', process: 'shop', nth: 2 }], maxFaults: 1 });
    expect(plans.map((p) => p.map((x) => (x as { nth?: number }).nth))).toEqual([[2], [1], [3], [4]]);
  });
});

const dualWrite = LESSONS.find((l) => l.id === 'dual-write')!;
const exam = (name: string) => readFileSync(new URL(`./judge/dual-write/${name}.ts`, import.meta.url), 'utf8');
/** The shop's second statement (the first is BEGIN, never counted): the outbox INSERT in the solution. */
const FAIL_OUTBOX_INSERT: Fault = { kind: 'fail-statement', process: 'shop', nth: 2 };

async function onBoth(check: (db: SimDatabase, backend: string) => Promise<void>): Promise<void> {
  await check(lite.db, 'PGlite');
  await check(server, 'PostgreSQL 15');
}

let lite: Awaited<ReturnType<typeof openSimDb>>;
let server: PostgresSimDatabase;
let database: Awaited<ReturnType<typeof throwawayDatabase>>;

beforeAll(async () => {
  database = await throwawayDatabase(`eo_fail_statement_${process.pid}`);
  server = await PostgresSimDatabase.open(database.url);
  lite = await openSimDb();
});

afterAll(async () => {
  await server?.close();
  await lite?.close();
  await database?.drop();
});

describe('in a run', () => {
  test('the solution: the failed INSERT aborts the transaction, nothing is saved or promised, the checkout fails as a lost race would (not a code failure), and the trace names the fault', async () => {
    await onBoth(async (db, backend) => {
      const r = await runScenario(db, { scenario: dualWrite, code: dualWrite.variants.solution.code, variant: 'solution', seed: 1, faults: [FAIL_OUTBOX_INSERT] });
      const hint = `${backend}: ${replayHint(r)}`;
      expect(r.verdict, hint).toBe('held');
      const at = r.faultEvents[0];
      expect(at, hint).not.toBeNull();
      const e = r.trace[at!]!;
      expect([e.type, e.actor, e.fault], hint).toEqual(['db-error', 'shop', 'fail-statement']);
      expect(String((e.data as { sql?: unknown }).sql), hint).toMatch(/^\s*INSERT INTO outbox/i);
      expect(e.text, hint).toMatch(/deadlock detected/);
      expect(r.trace.some((x) => x.actor === 'shop' && x.type === 'log' && /placing the order failed: deadlock detected/.test(x.text)), hint).toBe(true);
      expect(r.codeErrors.filter((c) => c.failure), hint).toEqual([]);
    });
  });

  test('a savepoint that swallows the outbox INSERT\'s failure commits an order nobody announces', async () => {
    await onBoth(async (db, backend) => {
      const r = await runScenario(db, { scenario: dualWrite, code: exam('savepoint-swallows-outbox-error'), variant: 'custom', seed: 1, faults: [{ kind: 'fail-statement', process: 'shop', sql: 'INSERT INTO outbox' }] });
      expect(r.invariants.find((i) => i.id === 'nothing-lost')?.held, `${backend}: ${replayHint(r)}`).toBe(false);
    });
  });

  test('an un-awaited outbox INSERT that fails leaves the COMMIT a rollback, and the order is confirmed but never saved', async () => {
    await onBoth(async (db, backend) => {
      const r = await runScenario(db, { scenario: dualWrite, code: exam('outbox-not-awaited'), variant: 'custom', seed: 1, faults: [{ kind: 'fail-statement', process: 'shop', sql: 'INSERT INTO outbox' }] });
      const broke = r.invariants.filter((i) => !i.held).map((i) => i.id);
      expect(broke.length > 0 || r.codeErrors.some((c) => c.failure), `${backend}: ${replayHint(r)}`).toBe(true);
    });
  });
});
