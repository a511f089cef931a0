/**
 * now() inside a transaction is the time the transaction began, fixed until COMMIT or ROLLBACK, as
 * in PostgreSQL; outside one, each statement reads the step's simulated time. Both back-ends get
 * the same answers through the engine's database port.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { isParked, type SimDatabase } from '../simulations/db/port';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { VirtualClock } from '../simulations/engine/clock';
import { openSimDb, postgresSimDbPerBlock } from './helpers/sim-db';

const T0 = SIM_EPOCH_MS;

/** The first value of the first row `pid`'s statement returns at simulated time `at`. */
async function value(db: SimDatabase, pid: string, sql: string, at: number, params: unknown[] = []): Promise<unknown> {
  const got = await db.query(pid, sql, params, at);
  if (isParked(got)) throw new Error(`${sql} waited for a lock`);
  const row = got.rows[0];
  return row ? Object.values(row)[0] : undefined;
}

const ms = (v: unknown) => (v as Date).getTime();

test('transactions that begin in one simulated millisecond start a microsecond apart, and the next millisecond starts over', () => {
  const clock = new VirtualClock(T0);
  const begun = [clock.transactionInstant(), clock.transactionInstant(), clock.transactionInstant()];
  expect(begun.map((t) => Math.round((t - T0) * 1000))).toEqual([0, 1, 2]);
  expect(clock.now()).toBe(T0);
  clock.advanceTo(T0 + 5);
  expect(clock.transactionInstant()).toBe(T0 + 5);
});

function scripts(db: () => SimDatabase) {
  beforeEach(async () => {
    await db().drop('a');
    await db().reset();
  });

  test('inside a transaction now() stays at its BEGIN; after COMMIT it reads the step again', async () => {
    await value(db(), 'a', 'BEGIN', T0 + 1_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 5_000))).toBe(T0 + 1_000);
    expect(ms(await value(db(), 'a', 'SELECT transaction_timestamp()', T0 + 9_000))).toBe(T0 + 1_000);
    await value(db(), 'a', 'COMMIT', T0 + 10_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 12_000))).toBe(T0 + 12_000);
  });

  test('a DEFAULT now() written late in a transaction carries the time the transaction began', async () => {
    await value(db(), 'a', 'BEGIN', T0 + 2_000);
    const id = await value(db(), 'a', "INSERT INTO orders (customer_id, total_cents) VALUES ('c-1', 500) RETURNING id", T0 + 30_000);
    await value(db(), 'a', 'COMMIT', T0 + 31_000);
    expect(ms(await value(db(), 'a', 'SELECT created_at FROM orders WHERE id = $1', T0 + 40_000, [id]))).toBe(T0 + 2_000);
  });

  test('after ROLLBACK, and in the next transaction, now() is that moment again', async () => {
    await value(db(), 'a', 'BEGIN', T0 + 1_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 3_000))).toBe(T0 + 1_000);
    await value(db(), 'a', 'ROLLBACK', T0 + 4_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 6_000))).toBe(T0 + 6_000);
    await value(db(), 'a', 'BEGIN', T0 + 7_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 8_000))).toBe(T0 + 7_000);
    await value(db(), 'a', 'COMMIT', T0 + 8_000);
  });

  test('a clock first read inside a savepoint that is rolled back to is still the clock afterwards', async () => {
    await value(db(), 'a', 'BEGIN', T0 + 1_000);
    await value(db(), 'a', 'SAVEPOINT s', T0 + 2_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 3_000))).toBe(T0 + 1_000);
    await value(db(), 'a', 'ROLLBACK TO SAVEPOINT s', T0 + 4_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 5_000))).toBe(T0 + 1_000);
    await value(db(), 'a', 'COMMIT', T0 + 6_000);
  });

  test('an instant with microseconds reaches now() and a DEFAULT now() whole', async () => {
    const micros = (T0 + 1_000) * 1000 + 7;
    const at = T0 + 1_000 + 0.007;
    const asMicros = (sql: string) => value(db(), 'a', `SELECT (extract(epoch FROM ${sql}) * 1000000)::bigint::text`, at);
    expect(await asMicros('now()')).toBe(String(micros));
    await value(db(), 'a', 'BEGIN', at);
    const id = await value(db(), 'a', "INSERT INTO orders (customer_id, total_cents) VALUES ('c-1', 500) RETURNING id", T0 + 2_000);
    await value(db(), 'a', 'COMMIT', T0 + 2_000);
    expect(await value(db(), 'a', 'SELECT (extract(epoch FROM created_at) * 1000000)::bigint::text FROM orders WHERE id = $1', T0 + 3_000, [id])).toBe(String(micros));
  });

  test('a savepoint rolled back to does not end the transaction: now() stays at BEGIN', async () => {
    await value(db(), 'a', 'BEGIN', T0 + 1_000);
    await value(db(), 'a', 'SAVEPOINT s', T0 + 2_000);
    await value(db(), 'a', 'ROLLBACK TO SAVEPOINT s', T0 + 3_000);
    expect(ms(await value(db(), 'a', 'SELECT now()', T0 + 4_000))).toBe(T0 + 1_000);
    await value(db(), 'a', 'COMMIT', T0 + 5_000);
  });
}

describe('PGlite: now() in a transaction', () => {
  let lite: Awaited<ReturnType<typeof openSimDb>>;
  beforeAll(async () => {
    lite = await openSimDb();
  });
  afterAll(() => lite?.close());
  scripts(() => lite.db);
});

describe('PostgreSQL 15: the same scripts', () => {
  const server = postgresSimDbPerBlock(`eo_txclock_${process.pid}`);
  scripts(server);
});
