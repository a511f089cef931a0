/**
 * Every run starts from the lesson's schema (simulations/schema-guard.ts): what the learner's code
 * or the lab's query panel created, altered or dropped does not outlive the next reset, so the same
 * seed gives the same run. Otherwise a correct handler keeping its own `my_seen` table holds once
 * and then "fails" on every later run (its rows still there), and `DROP TABLE operations` in the
 * query panel breaks every later run, the solution's included.
 */
import { systematicPlans } from '../simulations/run/systematic';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { explore, runScenario, type RunResult } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { dropCreatedSql } from '../simulations/db/schema-guard';
import { openSimDb, replayHint } from './helpers/sim-db';

let sim: Awaited<ReturnType<typeof openSimDb>>;
beforeAll(async () => {
  sim = await openSimDb();
});
afterAll(async () => {
  await sim?.close();
});

const concurrent = lessonById('concurrent-redelivery');

/**
 * A consumer that keeps its own dedupe table, created by the handler itself. It marks a message
 * seen before sending, so a crash right after its INSERT loses the receipt (the systematic seeds
 * of an exploration find that); on every other schedule it sends once.
 */
const OWN_TABLE = `export async function handleMessage(msg, env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS my_seen (message_id text PRIMARY KEY)');
  const { rows } = await env.db.query(
    'INSERT INTO my_seen (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id',
    [String(msg.orderId)],
  );
  if (rows.length === 1) await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}`;

const run = (code: string, seed = 3, variant = 'learner') => runScenario(sim.db, { scenario: concurrent, code, variant, seed });
const summary = (r: RunResult) => ({ verdict: r.verdict, traceHash: r.traceHash, invariants: r.invariants.map((i) => [i.id, i.held]), codeErrors: r.codeErrors });
const tables = async () => (await sim.pg.query<{ t: string }>("SELECT relname AS t FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY 1")).rows.map((r) => r.t);
const columns = async (table: string) =>
  (await sim.pg.query<{ c: string }>('SELECT column_name AS c FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position', [table])).rows.map((r) => r.c);

describe('a run starts from the lesson schema', () => {
  test("a handler's own table is dropped before the next run: the same seed gives the same run, three times", async () => {
    const lesson = await tables();
    const first = await run(OWN_TABLE);
    expect(first.verdict, replayHint(first)).toBe('held');
    expect(await tables()).toContain('my_seen');
    const again = [await run(OWN_TABLE), await run(OWN_TABLE)];
    for (const r of again) expect(summary(r), replayHint(r)).toEqual(summary(first));
    // The next reset takes it away again.
    await run(concurrent.variants.solution.code, 3, 'solution');
    expect(await tables()).toEqual(lesson);
  });

  test('exploring that handler finds no violation (each schedule used to inherit the last one’s rows)', async () => {
    // The random seeds after the systematic ones, which never crash between the INSERT and the send.
    const firstSeed = systematicPlans(concurrent).length + 1;
    const result = await explore(sim.db, { scenario: concurrent, code: OWN_TABLE, variant: 'learner', runs: 25, firstSeed });
    expect(result.violations, result.counterexample ? replayHint({ scenario: concurrent.id, variant: 'learner', ...result.counterexample }) : '').toBe(0);
  });

  test('ALTER TABLE on a lesson table (from the query panel) is undone by the next run', async () => {
    const before = await columns('operations');
    await sim.pg.exec('ALTER TABLE operations ADD COLUMN hacked int');
    await sim.db.afterOutsideSql();
    const r = await run(concurrent.variants.solution.code, 3, 'solution');
    expect(r.verdict, replayHint(r)).toBe('held');
    expect(await columns('operations')).toEqual(before);
  });

  test('DROP TABLE operations breaks nothing after it: the next run, and the one after, hold', async () => {
    const reference = await run(concurrent.variants.solution.code, 5, 'solution');
    await sim.pg.exec('DROP TABLE operations');
    await sim.db.afterOutsideSql();
    const after = await run(concurrent.variants.solution.code, 5, 'solution');
    expect(summary(after), replayHint(after)).toEqual(summary(reference));
    expect(summary(await run(concurrent.variants.solution.code, 5, 'solution'))).toEqual(summary(reference));
  });

  test('a function the learner replaced, or one of their own, is put back or removed', async () => {
    await sim.pg.exec(`CREATE OR REPLACE FUNCTION sim.now() RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT '1999-01-01'::timestamptz $$;
      CREATE FUNCTION public.helper(x int) RETURNS int LANGUAGE sql AS 'SELECT x + 1';`);
    const r = await run(concurrent.variants.solution.code, 3, 'solution');
    expect(r.verdict).toBe('held');
    const { rows } = await sim.pg.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'helper'");
    expect(rows[0].n).toBe(0);
    const { rows: clock } = await sim.pg.query<{ y: number }>('SELECT extract(year FROM sim.now())::int AS y');
    expect(clock[0].y).not.toBe(1999);
  });

  // A red-team review: PostgreSQL fires no event trigger for DROP EVENT TRIGGER, so the guard went
  // blind, and a rule swallowing inserts into operations broke every later run, the Solution's too.
  test.each([
    ['dropped', 'DROP EVENT TRIGGER IF EXISTS sim_note_ddl; DROP EVENT TRIGGER IF EXISTS sim_note_drop;'],
    ['disabled', 'ALTER EVENT TRIGGER sim_note_ddl DISABLE; ALTER EVENT TRIGGER sim_note_drop DISABLE;'],
    [
      'replaced by a function that notes nothing',
      `CREATE OR REPLACE FUNCTION sim.note_schema_change() RETURNS event_trigger LANGUAGE plpgsql AS $f$ BEGIN RETURN; END $f$;`,
    ],
  ])('with the guard %s, a rule added behind its back does not outlive the run', async (_how, blind) => {
    const reference = await run(concurrent.variants.solution.code, 5, 'solution');
    await sim.pg.exec(blind);
    await sim.pg.exec('CREATE RULE swallow AS ON INSERT TO operations DO INSTEAD NOTHING');
    await sim.db.afterOutsideSql();
    const after = await run(concurrent.variants.solution.code, 5, 'solution');
    expect(summary(after), replayHint(after)).toEqual(summary(reference));
    const { rows } = await sim.pg.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_rules WHERE rulename = 'swallow'");
    expect(rows[0].n).toBe(0);
    // The guard is back and sees the next change.
    await sim.pg.exec('ALTER TABLE operations ADD COLUMN noticed int');
    const { rows: noted } = await sim.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM sim.schema_changes');
    expect(noted[0].n).toBeGreaterThan(0);
    await run(concurrent.variants.solution.code, 5, 'solution');
  });

  test('CREATE TABLE IF NOT EXISTS of a lesson table, and a scenario’s own setup tables, are no change at all', async () => {
    await run(concurrent.variants.solution.code, 3, 'solution');
    await sim.pg.exec('CREATE TABLE IF NOT EXISTS operations (op_key text PRIMARY KEY)');
    const replay = lessonById('replay-safety');
    await runScenario(sim.db, { scenario: replay, code: replay.variants.solution.code, variant: 'solution', seed: 1 });
    const { rows } = await sim.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM sim.schema_changes');
    expect(rows[0].n).toBe(0);
  });
});

describe('a run starts from the lesson session', () => {
  test('a search path changed with SET (in the query panel) is put back by the next reset', async () => {
    const reference = await run(concurrent.variants.solution.code, 3, 'solution');
    // Still finds the tables, but a bare now() would read the host's clock instead of the virtual one.
    await sim.pg.exec('SET search_path = public');
    const after = await run(concurrent.variants.solution.code, 3, 'solution');
    expect(summary(after), replayHint(after)).toEqual(summary(reference));
    const { rows } = await sim.pg.query<{ search_path: string }>('SHOW search_path');
    expect(rows[0].search_path).toBe('public, sim, pg_catalog');
  });
});

describe('dropCreatedSql', () => {
  test('drops what was created, containers first (a table before the index behind its key), newest first within a kind; anything else asks for a rebuild', () => {
    const sql = dropCreatedSql([
      { kind: 'create', object_type: 'index', identity: 'public.t_pkey' },
      { kind: 'create', object_type: 'table', identity: 'public.t' },
      { kind: 'create', object_type: 'materialized view', identity: 'public."My View"' },
    ]);
    expect(sql).toContain('DROP MATERIALIZED VIEW IF EXISTS public."My View" CASCADE; DROP TABLE IF EXISTS public.t CASCADE; DROP INDEX IF EXISTS public.t_pkey CASCADE');
    expect(dropCreatedSql([{ kind: 'other', object_type: 'table', identity: 'public.operations' }])).toBeNull();
    expect(dropCreatedSql([{ kind: 'create', object_type: 'trigger', identity: 't on public.operations' }])).toBeNull();
  });
});
