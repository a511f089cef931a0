/**
 * Every run starts from the session's settings at boot: a SET (or set_config, or DISCARD) made by
 * the learner's code in one run, or typed in the lab's query panel, does not reach the next run.
 * Before this, a handler that read a setting it had set itself held once and then behaved
 * differently on the same seed, and `SET default_transaction_read_only = on` in the query panel
 * broke every later run until the page was reloaded. The search path had its own fix earlier
 * (tests/schema-guard.test.ts).
 */
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { PostgresSimDatabase } from '../simulations/db/postgres';
import { PGLITE_SETTINGS, PGLITE_START_PARAMS } from '../simulations/db/pglite-start';
import { runScenario, type RunResult } from '../simulations/run/run';
import { lessonById } from '../simulations/lessons/index';
import { PgliteSimDatabase } from '../simulations/db/pglite';
import type { SimDatabase } from '../simulations/db/port';
import { replayHint } from './helpers/sim-db';

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

const run = (db: SimDatabase, code: string, seed = 3, variant = 'learner') => runScenario(db, { scenario: concurrent, code, variant, seed });
const summary = (r: RunResult) => ({ verdict: r.verdict, traceHash: r.traceHash, effects: r.ledger.emails.length, codeErrors: r.codeErrors });

/** The same seed three times gives the same run, and the first one did send. */
async function sameRunThrice(db: SimDatabase, code: string) {
  const first = await run(db, code);
  expect(first.ledger.emails.length, replayHint(first)).toBeGreaterThan(0);
  for (const again of [await run(db, code), await run(db, code)]) expect(summary(again), replayHint(again)).toEqual(summary(first));
}

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

  test("a SET in the learner's code does not reach the next run", () => sameRunThrice(db, VIA_SET));
  test("a set_config(…) in the learner's code does not reach the next run", () => sameRunThrice(db, VIA_SET_CONFIG));

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
  let adminUrl: string;
  const dbName = `eo_session_${process.pid}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  beforeAll(async () => {
    adminUrl = inject('pgUrl');
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin(`CREATE DATABASE ${dbName}`);
    const url = new URL(adminUrl);
    url.pathname = `/${dbName}`;
    server = await PostgresSimDatabase.open(url.toString());
  });
  afterAll(async () => {
    await server?.close();
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  });

  test("a SET in the learner's code does not reach the next run", () => sameRunThrice(server, VIA_SET));
  test("a set_config(…) in the learner's code does not reach the next run", () => sameRunThrice(server, VIA_SET_CONFIG));
});
