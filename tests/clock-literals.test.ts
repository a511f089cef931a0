/**
 * A bare clock input string (`lease_until < 'now'`, `VALUES ($1, 'now')`) or one bound as a
 * parameter reads simulated time on both back-ends, typed from its place as PostgreSQL types the
 * word itself: an instant beside a timestamptz, a date beside a date, a wall time beside a timestamp.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { clockInputsAt, clockParamsAt } from '../simulations/db/sql-clock-words';
import { isParked, type SimDatabase } from '../simulations/db/port';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { postgresSimDbPerBlock, simDbPerFile } from './helpers/sim-db';

const AT = Date.UTC(2026, 0, 5, 23, 59, 30, 250);

describe('clockInputsAt', () => {
  test.each([
    ["UPDATE t SET x = 1 WHERE lease_until < 'now'", "UPDATE t SET x = 1 WHERE lease_until < '2026-01-05 23:59:30.250+00'"],
    ["SELECT 1 FROM t WHERE 'NOW ' >= lease_until", "SELECT 1 FROM t WHERE '2026-01-05 23:59:30.250+00' >= lease_until"],
    ["UPDATE t SET lease_until = 'now' WHERE id = 1", "UPDATE t SET lease_until = '2026-01-05 23:59:30.250+00' WHERE id = 1"],
    ["SELECT 1 FROM t WHERE due_on = 'today' OR due_on <> 'tomorrow' OR due_on != 'yesterday'", "SELECT 1 FROM t WHERE due_on = '2026-01-05' OR due_on <> '2026-01-06' OR due_on != '2026-01-04'"],
    ["SELECT 1 FROM t WHERE at BETWEEN 'yesterday' AND 'now'", "SELECT 1 FROM t WHERE at BETWEEN '2026-01-04' AND '2026-01-05 23:59:30.250+00'"],
    ["SELECT 1 FROM t WHERE lease_until < ('now') AND ((('today')) <= due)", "SELECT 1 FROM t WHERE lease_until < ('2026-01-05 23:59:30.250+00') AND ((('2026-01-05')) <= due)"],
    ["INSERT INTO claims (k, claimed_at) VALUES ($1, 'now')", "INSERT INTO claims (k, claimed_at) VALUES ($1, '2026-01-05 23:59:30.250+00')"],
    ["SELECT greatest(lease_until, 'now') FROM t", "SELECT greatest(lease_until, '2026-01-05 23:59:30.250+00') FROM t"],
  ])('%s', (sql, written) => {
    expect(clockInputsAt(sql, AT)).toBe(written);
  });

  test.each([
    // Cast ones are onSimulatedClock's; data, JSON keys, E strings and other operators stay.
    "SELECT 'now'::timestamptz, CAST('today' AS date), timestamptz 'now'",
    "SELECT 'now' || 'x', E'now' = x, p->>'now' = 'x', a <@ 'now', x AS date FROM t",
    "SELECT 1 FROM t WHERE word LIKE 'now' OR word ILIKE ('today') OR word SIMILAR TO 'now'",
    "CREATE FUNCTION f() RETURNS bool LANGUAGE sql AS $$ SELECT now() > 'now' $$",
    "SELECT 1 -- lease_until < 'now'",
  ])('leaves %s', (sql) => {
    expect(clockInputsAt(sql, AT)).toBe(sql);
  });

  test('a parameter that is a clock word is written as what it reads; other parameters, and an array without one, stay', () => {
    expect(clockParamsAt(['k', 'now', ' Today ', 42, null], AT)).toEqual(['k', '2026-01-05 23:59:30.250+00', '2026-01-05', 42, null]);
    const none = ['k', 'nowhere', 1];
    expect(clockParamsAt(none, AT)).toBe(none);
    expect(clockParamsAt(undefined, AT)).toBeUndefined();
  });

  test('an instant a microsecond into its millisecond (a second transaction begun in it) is written to the microsecond', () => {
    expect(clockParamsAt(['now'], AT + 0.001)).toEqual(['2026-01-05 23:59:30.250001+00']);
    expect(clockInputsAt("SELECT 1 FROM t WHERE lease_until < 'now'", AT + 0.012)).toBe("SELECT 1 FROM t WHERE lease_until < '2026-01-05 23:59:30.250012+00'");
  });
});

async function rows(db: SimDatabase, pid: string, sql: string, at: number): Promise<Record<string, unknown>[]> {
  const got = await db.query(pid, sql, [], at);
  if (isParked(got)) throw new Error(`${pid}: ${sql} waited for a lock`);
  return got.rows;
}

function scripts(db: () => SimDatabase) {
  beforeEach(async () => {
    await db().drop('p');
    await db().reset();
  });

  test("'now' beside a timestamptz, a date and a timestamp is the transaction's start, typed from the other side", async () => {
    const begun = SIM_EPOCH_MS + 10 * 60_000;
    await rows(db(), 'p', 'CREATE TABLE clocked (lease timestamptz, due date, wall timestamp)', SIM_EPOCH_MS);
    await rows(db(), 'p', `INSERT INTO clocked VALUES (to_timestamp(${(begun + 1) / 1000}), to_timestamp(${begun / 1000})::date, to_timestamp(${begun / 1000})::timestamp)`, SIM_EPOCH_MS);
    await rows(db(), 'p', 'BEGIN', begun);
    // A minute into the transaction, 'now' is still its start, as now() is.
    const [got] = await rows(
      db(),
      'p',
      "SELECT lease > 'now' AS lease_later, lease < 'now' AS lease_earlier, due = 'today' AS due_today, 'tomorrow' > due AS tomorrow_later, wall = 'now' AS wall_now, wall BETWEEN 'yesterday' AND 'now' AS wall_between FROM clocked",
      begun + 60_000,
    );
    await rows(db(), 'p', 'COMMIT', begun + 60_000);
    expect(got).toEqual({ lease_later: true, lease_earlier: false, due_today: true, tomorrow_later: true, wall_now: true, wall_between: true });
  });

  test("'now' in VALUES and 'now' bound as a parameter are the transaction's start too", async () => {
    await rows(db(), 'p', 'CREATE TABLE claimed (k text PRIMARY KEY, at timestamptz)', SIM_EPOCH_MS);
    const at = SIM_EPOCH_MS + 90_000;
    await rows(db(), 'p', "INSERT INTO claimed VALUES ('a', 'now')", at);
    const got = await db().query('p', 'INSERT INTO claimed VALUES ($1, $2::timestamptz) RETURNING at', ['b', 'now'], at + 1_000);
    if (isParked(got)) throw new Error('parked');
    expect((got.rows[0] as { at: Date }).at.getTime()).toBe(at + 1_000);
    const [a] = await rows(db(), 'p', "SELECT at FROM claimed WHERE k = 'a'", at);
    expect((a as { at: Date }).at.getTime()).toBe(at);
  });

  test("a lease compared with a bare 'now' runs out in simulated time", async () => {
    await rows(db(), 'p', "INSERT INTO operations (op_key, state, lease_until) VALUES ('k', 'running', now() + interval '60 seconds')", SIM_EPOCH_MS);
    const claim = "UPDATE operations SET lease_until = now() + interval '60 seconds' WHERE op_key = 'k' AND lease_until < 'now' RETURNING op_key";
    expect(await rows(db(), 'p', claim, SIM_EPOCH_MS + 59_000)).toHaveLength(0);
    expect(await rows(db(), 'p', claim, SIM_EPOCH_MS + 61_000)).toHaveLength(1);
  });
}

describe('PGlite', () => {
  const sim = simDbPerFile();
  scripts(() => sim.db);
});

describe('PostgreSQL 15', () => {
  const server = postgresSimDbPerBlock('clock_literals');
  scripts(server);
});
