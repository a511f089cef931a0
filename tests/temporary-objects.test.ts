/**
 * TEMP tables in the tab: PostgreSQL gives each connection its own, gone when it closes, and the
 * tab's one session cannot (a TEMP table there would be every process's, and outlive a crash), so
 * PGlite refuses them inside the database, where an open transaction aborts as on a server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isParked, type SimDatabase } from '../simulations/db/port';
import { SESSION_STATE_REFUSAL, setsSessionState, TEMPORARY_REFUSAL, usesTemporary } from '../simulations/db/sql-words';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { openSimDb } from './helpers/sim-db';

async function run(db: SimDatabase, pid: string, sql: string): Promise<{ rows?: unknown[]; error?: string; code?: string }> {
  try {
    const got = await db.query(pid, sql, [], SIM_EPOCH_MS);
    if (isParked(got)) throw new Error('parked');
    return { rows: got.rows };
  } catch (err) {
    return { error: (err as Error).message, code: (err as { code?: string }).code };
  }
}

describe('which statements make or name a temporary object', () => {
  test.each([
    'CREATE TEMP TABLE seen (k text PRIMARY KEY)',
    'create temporary table if not exists seen (k text)',
    'CREATE LOCAL TEMP TABLE seen AS SELECT 1',
    'CREATE GLOBAL TEMPORARY TABLE seen (k text) ON COMMIT DELETE ROWS',
    'CREATE TEMP TABLE seen ON COMMIT DROP AS SELECT * FROM pg_temp.other',
    'CREATE TEMP VIEW v AS SELECT 1',
    'CREATE TEMP SEQUENCE s',
    'SELECT 1 AS k INTO TEMP seen',
    'INSERT INTO pg_temp.seen VALUES ($1)',
    '/* cache */ CREATE TEMP TABLE seen (k text)',
  ])('%s', (sql) => expect(usesTemporary(sql)).toBe(true));

  test.each([
    'CREATE TABLE seen (k text)',
    "SELECT 'CREATE TEMP TABLE x' AS text",
    'SELECT temp FROM readings',
    'INSERT INTO temperatures (temp) VALUES (1)',
    '-- CREATE TEMP TABLE x\nSELECT 1',
    'DISCARD TEMP',
    // Gone with its transaction, which no other process enters in the tab: nothing to share.
    'CREATE TEMP TABLE new_order (id bigint NOT NULL) ON COMMIT DROP',
    'create temporary table batch on commit drop as select id from outbox',
  ])('not: %s', (sql) => expect(usesTemporary(sql)).toBe(false));
});

describe('which statements keep state in a session-level setting', () => {
  test.each([
    "SELECT set_config('receipts.order_1042', 'sent', false)",
    "SELECT set_config($1, 'sent', false)",
    "SELECT set_config('a.b', format('%s,%s', 1, 2), 'false')",
    "SELECT set_config('a.b', 'x', false::boolean) AS v",
    'SET app.sent = 1',
    "SET SESSION relay.busy TO 'on'",
  ])('%s', (sql) => expect(setsSessionState(sql)).toBe(true));

  test.each([
    "SELECT set_config('app.sent', 'x', true)",
    'SET LOCAL app.sent = 1',
    "SET lock_timeout = '1s'",
    'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE',
    "SELECT current_setting('app.sent', true)",
    "SELECT 'set_config(x, y, false)' AS text",
  ])('not: %s', (sql) => expect(setsSessionState(sql)).toBe(false));
});

describe('PGlite refuses them inside the database', () => {
  let lite: Awaited<ReturnType<typeof openSimDb>>;
  beforeAll(async () => {
    lite = await openSimDb();
  });
  afterAll(() => lite?.close());

  test('outside a transaction: the statement fails with why, and no table is made', async () => {
    const got = await run(lite.db, 'worker-1', 'CREATE TEMP TABLE seen (k text PRIMARY KEY)');
    expect(got.error).toBe(TEMPORARY_REFUSAL);
    expect(got.code).toBe('0A000');
    expect((await run(lite.db, 'worker-2', "SELECT to_regclass('seen') IS NULL AS gone")).rows).toEqual([{ gone: true }]);
  });

  test('a session-level setting fails with why; one local to the transaction works', async () => {
    const got = await run(lite.db, 'worker-1', "SELECT set_config('receipts.order_1042', 'sent', false)");
    expect(got.error).toBe(SESSION_STATE_REFUSAL);
    expect(got.code).toBe('0A000');
    await run(lite.db, 'worker-1', 'BEGIN');
    expect((await run(lite.db, 'worker-1', "SELECT set_config('receipts.order_1042', 'sent', true) AS v")).rows).toEqual([{ v: 'sent' }]);
    await run(lite.db, 'worker-1', 'COMMIT');
  });

  test("what the learner's code prepared is gone at the next run's reset, the engine's own statements stay", async () => {
    await run(lite.db, 'worker-1', 'PREPARE seen_state(text) AS SELECT $1::text AS k');
    expect((await run(lite.db, 'worker-2', "EXECUTE seen_state('x')")).rows).toEqual([{ k: 'x' }]);
    await lite.db.reset();
    expect((await run(lite.db, 'worker-1', "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'seen_state'")).rows).toEqual([{ n: 0 }]);
    expect((await run(lite.db, 'worker-1', 'SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });

  test('two processes that prepare the same statement each succeed, as on connections of their own; one that prepares twice fails', async () => {
    const prepare = 'PREPARE claim_it(text) AS SELECT $1::text AS k';
    expect((await run(lite.db, 'worker-1', prepare)).error).toBeUndefined();
    expect((await run(lite.db, 'worker-2', prepare)).error).toBeUndefined();
    expect((await run(lite.db, 'worker-2', "EXECUTE claim_it('x')")).rows).toEqual([{ k: 'x' }]);
    expect((await run(lite.db, 'worker-1', prepare)).code).toBe('42P05');
    expect((await run(lite.db, 'worker-2', 'PREPARE claim_it(text) AS SELECT 2 AS other')).code).toBe('42P05');
    await lite.db.reset();
    expect((await run(lite.db, 'worker-1', "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'claim_it'")).rows).toEqual([{ n: 0 }]);
    expect((await run(lite.db, 'worker-2', prepare)).error).toBeUndefined();
  });

  test('inside a transaction: it aborts, as a failed statement does on PostgreSQL', async () => {
    await run(lite.db, 'worker-1', 'BEGIN');
    expect((await run(lite.db, 'worker-1', 'CREATE TEMPORARY TABLE seen (k text)')).code).toBe('0A000');
    expect((await run(lite.db, 'worker-1', 'SELECT 1 AS one')).code).toBe('25P02');
    await run(lite.db, 'worker-1', 'ROLLBACK');
    expect((await run(lite.db, 'worker-1', 'SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
}, 60_000);
