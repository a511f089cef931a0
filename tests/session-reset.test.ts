/**
 * Every run starts clean, on PGlite and on PostgreSQL 15: from the session's settings at boot
 * whatever changed them (a SET, a set_config(…), a `DO … EXECUTE 'SET …'`, the lab's query panel),
 * with no transaction left open or aborted, with PL/pgSQL and the schema guard in place, and from
 * the lesson's declared schema (lib/schema.ts) whatever the last run or the last command left:
 * a learner's own table with a primary key, a trigger on a lesson table, a dropped extension.
 * The same seed then gives the same run. The search path has its own tests (tests/schema-guard.test.ts).
 */
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PostgresSimDatabase } from '../simulations/db/postgres';
import { PGLITE_SETTINGS, PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { explore, runScenario, type RunResult } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { PgliteSimDatabase } from '../simulations/db/pglite';
import type { SimDatabase } from '../simulations/db/port';
import { replayHint, throwawayDatabase } from './helpers/sim-db';
import { TABLES } from '../lib/schema';

/** The lesson's declared tables (lib/schema.ts): what `public` holds after a reset. */
const LESSON_TABLES = [...TABLES].sort();

const concurrent = lessonById('concurrent-redelivery');

/** Sends a receipt only while a session setting it makes itself is unset: a run's state kept in the session. */
const remembers = (set: string) => `export async function handleMessage(msg, env) {
  const { rows } = await env.db.query("SELECT coalesce(current_setting('app.sent', true), '') AS sent");
  if (rows[0].sent === '') await env.email.send({ to: msg.customer, orderId: msg.orderId });
  await env.db.query(${JSON.stringify(set)});
  return 'ack';
}`;
const VIA_SET = remembers("SET app.sent = 'yes'");
const VIA_SET_CONFIG = remembers("SELECT set_config('app.sent', 'yes', false)");
const VIA_DO = remembers("DO $$ BEGIN EXECUTE 'SET app.sent = ''yes'''; END $$");

/** Turns the session read-only where no text rule looks, then sends its receipt. */
const READ_ONLY_VIA_DO = `export async function handleMessage(msg, env) {
  await env.db.query("DO $$ BEGIN EXECUTE 'SET default_transaction_read_only = on'; END $$");
  await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}`;

/** A right fix with its own dedupe table and primary key, created by the handler itself. */
const OWN_TABLE = `export async function handleMessage(msg, env) {
  await env.db.query('CREATE TABLE IF NOT EXISTS my_seen (message_id text PRIMARY KEY)');
  const { rows } = await env.db.query(
    'INSERT INTO my_seen (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id',
    [String(msg.orderId)],
  );
  if (rows.length === 1) await env.email.send({ to: msg.customer, orderId: msg.orderId });
  return 'ack';
}`;

const run = (db: SimDatabase, code: string, seed = 3, variant = 'learner') => runScenario(db, { scenario: concurrent, code, variant, seed });
const solution = (db: SimDatabase) => run(db, concurrent.variants.solution.code, 5, 'solution');
const summary = (r: RunResult) => ({ verdict: r.verdict, traceHash: r.traceHash, effects: r.ledger.emails.length, codeErrors: r.codeErrors });

/** The same seed three times gives the same run, and the first one did send. */
async function sameRunThrice(db: SimDatabase, code: string) {
  const first = await run(db, code);
  expect(first.ledger.emails.length, replayHint(first)).toBeGreaterThan(0);
  for (const again of [await run(db, code), await run(db, code)]) expect(summary(again), replayHint(again)).toEqual(summary(first));
}

/** After `poison`, the Solution's run and the one after it are the run it gave before. */
async function solutionUnchangedAfter(db: SimDatabase, poison: () => Promise<unknown>) {
  const reference = await solution(db);
  expect(reference.verdict, replayHint(reference)).toBe('held');
  await poison();
  for (const after of [await solution(db), await solution(db)]) expect(summary(after), replayHint(after)).toEqual(summary(reference));
}

/** Both back-ends: what the learner's code changes in its session does not reach the next run. */
function sessionTests(open: () => SimDatabase) {
  test("a SET in the learner's code does not reach the next run", () => sameRunThrice(open(), VIA_SET));
  test("a set_config(…) in the learner's code does not reach the next run", () => sameRunThrice(open(), VIA_SET_CONFIG));
  test("a setting changed through DO … EXECUTE in the learner's code does not reach the next run", () => sameRunThrice(open(), VIA_DO));
  test('a session made read-only through DO … EXECUTE does not break the next run', () =>
    solutionUnchangedAfter(open(), () => run(open(), READ_ONLY_VIA_DO)));
}

const publicTables = async (query: (sql: string) => Promise<{ rows: unknown[] }>) =>
  ((await query("SELECT relname AS t FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY 1")).rows as { t: string }[]).map((r) => r.t);

describe('PGlite: a run starts from the session settings at boot', () => {
  let pglite: PGlite;
  let db: PgliteSimDatabase;
  beforeAll(async () => {
    pglite = new PGlite({ startParams: [...PGLITE_START_PARAMS] });
    db = await PgliteSimDatabase.open(pglite);
  });
  afterAll(async () => {
    await pglite?.close();
  });

  sessionTests(() => db);

  /** SQL typed in the lab's query panel, as the worker runs it (errors shown there, not thrown). */
  const panel = async (sql: string) => {
    await pglite.exec(sql).catch(() => {});
    await db.afterOutsideSql();
  };

  test('an aborted transaction left by the query panel (BEGIN; SELECT 1/0) is rolled back before the next run', () =>
    solutionUnchangedAfter(db, () => panel('BEGIN; SELECT 1/0')));

  test('an open transaction left by the query panel is rolled back before the next run', async () => {
    await solutionUnchangedAfter(db, () => panel("BEGIN; INSERT INTO operations (op_key, state, lease_until) VALUES ('panel', 'done', now())"));
    expect(pglite.isInTransaction()).toBe(false);
    expect((await pglite.query("SELECT 1 FROM operations WHERE op_key = 'panel'")).rows).toEqual([]);
  });

  test("a transaction the learner's code began behind a comment, and never ended, is rolled back before the next run", async () => {
    const hidden = `export async function handleMessage(msg, env) {
  const c = await env.db.connect();
  await c.query('/* no text rule sees this */ BEGIN');
  await c.query("INSERT INTO operations (op_key, state, lease_until) VALUES ('hidden', 'done', now()) ON CONFLICT DO NOTHING");
  return 'ack';
}`;
    await solutionUnchangedAfter(db, () => run(db, hidden));
    expect(pglite.isInTransaction()).toBe(false);
  });

  test('DROP EXTENSION plpgsql CASCADE in the query panel is repaired before the next run, guard included', async () => {
    await solutionUnchangedAfter(db, () => panel('DROP EXTENSION plpgsql CASCADE'));
    expect((await pglite.query("SELECT 1 FROM pg_extension WHERE extname = 'plpgsql'")).rows).toHaveLength(1);
    await run(db, OWN_TABLE);
    await solution(db);
    expect(await publicTables((sql) => pglite.query(sql))).toEqual(LESSON_TABLES);
  });

  test('a SET in the query panel is undone by the next run; the settings PGlite started with stay', async () => {
    const reference = await run(db, concurrent.variants.solution.code, 5, 'solution');
    await pglite.exec('SET default_transaction_read_only = on');
    await db.afterOutsideSql();
    const after = await run(db, concurrent.variants.solution.code, 5, 'solution');
    expect(summary(after), replayHint(after)).toEqual(summary(reference));
    const show = async (name: string) => (await pglite.query<Record<string, string>>(`SHOW ${name}`)).rows[0][name];
    expect(await show('default_transaction_read_only')).toBe('off');
    expect(await show('synchronous_commit')).toBe(PGLITE_SETTINGS.synchronous_commit);
    expect(await show('search_path')).toBe('public, sim, pg_catalog');
  });
});

describe('PostgreSQL 15: a run starts from fresh sessions after a SET', () => {
  let server: PostgresSimDatabase;
  let database: Awaited<ReturnType<typeof throwawayDatabase>>;
  let dbUrl: string;
  beforeAll(async () => {
    database = await throwawayDatabase(`eo_session_${process.pid}`);
    dbUrl = database.url;
    server = await PostgresSimDatabase.open(dbUrl);
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  sessionTests(() => server);

  const dbQuery = async (sql: string) => {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      return await c.query(sql);
    } finally {
      await c.end();
    }
  };
  /** A new command on the same database, as `sim run … --db` opens it. */
  const reopen = async () => {
    await server.close();
    server = await PostgresSimDatabase.open(dbUrl);
  };

  test('a learner table with a primary key is dropped before the next run: the same seed gives the same run', async () => {
    await sameRunThrice(server, OWN_TABLE);
    await solution(server);
    expect(await publicTables(dbQuery)).toEqual(LESSON_TABLES);
  });

  test('exploring a right fix with its own table finds no violation', async () => {
    const result = await explore(server, { scenario: concurrent, code: OWN_TABLE, variant: 'learner', runs: 12 });
    expect(result.violations, result.counterexample ? replayHint({ scenario: concurrent.id, variant: 'learner', ...result.counterexample }) : '').toBe(0);
  });

  test('a new command starts from the lesson schema, not from a trigger the last one left on a lesson table', async () => {
    const reference = await solution(server);
    await dbQuery(`CREATE FUNCTION public.swallow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER swallow BEFORE INSERT ON operations FOR EACH ROW EXECUTE FUNCTION public.swallow();`);
    await reopen();
    const after = await solution(server);
    expect(summary(after), replayHint(after)).toEqual(summary(reference));
    expect((await dbQuery("SELECT 1 FROM pg_trigger WHERE tgname = 'swallow'")).rows).toEqual([]);
  });

  test('a new command drops the table a run of the last one created and never reset', async () => {
    await run(server, OWN_TABLE);
    expect(await publicTables(dbQuery)).toContain('my_seen');
    await reopen();
    expect(await publicTables(dbQuery)).toEqual(LESSON_TABLES);
  });

  test('DROP EXTENSION plpgsql CASCADE is repaired before the next run, guard included', async () => {
    await solutionUnchangedAfter(server, () => dbQuery('DROP EXTENSION plpgsql CASCADE'));
    expect((await dbQuery("SELECT 1 FROM pg_extension WHERE extname = 'plpgsql'")).rows).toHaveLength(1);
    await run(server, OWN_TABLE);
    await solution(server);
    expect(await publicTables(dbQuery)).toEqual(LESSON_TABLES);
  });
});
