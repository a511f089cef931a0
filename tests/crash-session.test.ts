/**
 * A crashed process's session ends with it, on both back-ends: its open transaction is rolled
 * back, its session-level advisory lock and row locks are let go, and the next process starts a
 * session of its own. On PostgreSQL that is a backend of its own too: the crashed one's is gone
 * before the next step, and the connection a restarted process gets (opened ahead while the last
 * was waited out, simulations/db/postgres.ts `openSpare`) never served another process. In the
 * tab, whose processes share one session, pg_backend_pid() answers each process's own number, and a
 * new one after a crash (simulations/db/backend-pid.ts).
 */
import pg from 'pg';
import { beforeEach, describe, expect, inject, test } from 'vitest';
import { isParked, type SimDatabase } from '../simulations/db/port';
import { SIM_EPOCH_MS } from '../simulations/engine/sim-time';
import { postgresSimDbPerBlock, simDbPerFile } from './helpers/sim-db';

const T0 = SIM_EPOCH_MS;

async function rows(db: SimDatabase, pid: string, sql: string): Promise<Record<string, unknown>[]> {
  const got = await db.query(pid, sql, [], T0);
  if (isParked(got)) throw new Error(`${pid}: ${sql} waited for a lock`);
  return got.rows;
}
const one = async (db: SimDatabase, pid: string, sql: string) => Object.values((await rows(db, pid, sql))[0] ?? {})[0];

function scripts(db: () => SimDatabase) {
  beforeEach(async () => {
    for (const pid of ['a', 'b', 'c']) await db().drop(pid);
    await db().reset();
  });

  test("the transaction is rolled back, and its session lock and row locks are another process's to take", async () => {
    await rows(db(), 'b', "INSERT INTO orders (customer_id, total_cents) VALUES ('c-0', 100)");
    await rows(db(), 'a', 'BEGIN');
    await rows(db(), 'a', "INSERT INTO orders (customer_id, total_cents) VALUES ('c-1', 500)");
    await rows(db(), 'a', 'SELECT id FROM orders FOR UPDATE');
    await rows(db(), 'a', 'SELECT pg_advisory_lock(42)');
    expect(await db().drop('a')).toBe(true);
    expect(db().inTransaction('a')).toBe(false);
    expect(Number(await one(db(), 'b', 'SELECT count(*) FROM orders'))).toBe(1);
    expect(await one(db(), 'b', 'SELECT pg_try_advisory_lock(42)')).toBe(true);
    await rows(db(), 'c', 'BEGIN');
    expect(await rows(db(), 'c', 'SELECT id FROM orders FOR UPDATE NOWAIT')).toHaveLength(1);
    await rows(db(), 'c', 'COMMIT');
  });

  test('a crash outside a transaction rolls nothing back, and the same process restarted begins afresh', async () => {
    await rows(db(), 'a', 'SELECT pg_advisory_lock(7)');
    expect(await db().drop('a')).toBe(false);
    expect(await one(db(), 'a', 'SELECT pg_try_advisory_lock(7)')).toBe(true);
    expect(await one(db(), 'b', 'SELECT pg_try_advisory_lock(7)')).toBe(false);
  });

  test('what a crashed process prepared is gone with it: restarted, it prepares the statement again; what another process prepared stays', async () => {
    await rows(db(), 'a', 'PREPARE mine AS SELECT 1 AS one');
    await rows(db(), 'a', 'PREPARE shared AS SELECT 2 AS two');
    await rows(db(), 'b', 'PREPARE shared AS SELECT 2 AS two');
    await db().drop('a');
    await rows(db(), 'a', 'PREPARE mine AS SELECT 1 AS one');
    expect(await one(db(), 'a', 'EXECUTE mine')).toBe(1);
    expect(await one(db(), 'b', 'EXECUTE shared')).toBe(2);
  });

  test('restarted, a process prepares its statement again inside a transaction, quoted names as written', async () => {
    await rows(db(), 'a', 'BEGIN');
    await rows(db(), 'a', 'PREPARE "claimA" AS SELECT 3 AS three');
    expect(await one(db(), 'a', 'EXECUTE "claimA"')).toBe(3);
    await db().drop('a');
    await rows(db(), 'a', 'BEGIN');
    await rows(db(), 'a', 'PREPARE "claimA" AS SELECT 3 AS three');
    expect(await one(db(), 'a', 'EXECUTE "claimA"')).toBe(3);
    await rows(db(), 'a', 'COMMIT');
  });

  test('pg_backend_pid(): each process has its own, and a restarted process a number no connection had before', async () => {
    const crashed = Number(await one(db(), 'a', 'SELECT pg_backend_pid()'));
    const other = Number(await one(db(), 'b', 'SELECT pg_backend_pid()'));
    expect(other).not.toBe(crashed);
    expect(Number(await one(db(), 'a', 'SELECT pg_backend_pid()'))).toBe(crashed);
    await db().drop('a');
    const seen = new Set([crashed, other]);
    for (const pid of ['a', 'c']) {
      const backend = Number(await one(db(), pid, 'SELECT pg_backend_pid()'));
      expect(seen.has(backend), `${pid} got backend ${backend}, which served another process`).toBe(false);
      seen.add(backend);
    }
  });
}

describe('PGlite', () => {
  const sim = simDbPerFile();
  scripts(() => sim.db);
});

describe('PostgreSQL 15', () => {
  const server = postgresSimDbPerBlock(`eo_crash_${process.pid}`);
  scripts(server);

  test("a lock held by a backend that serves no process of the run is waited out, not parked on: nothing the scheduler runs could release it", async () => {
    // A crashed process's backend still rolling back on a loaded machine, or another client of the server.
    const url = new URL(inject('pgUrl'));
    url.pathname = `/${String(await one(server(), 'b', 'SELECT current_database()'))}`;
    const outsider = new pg.Client({ connectionString: url.toString() });
    await outsider.connect();
    try {
      await outsider.query('SELECT pg_advisory_lock(99)');
      const pending = server().query('a', 'SELECT pg_advisory_lock(99) AS got', [], T0);
      const released = new Promise((resolve) => setTimeout(resolve, 300)).then(() => outsider.query('SELECT pg_advisory_unlock(99)'));
      const got = await pending;
      expect(isParked(got), 'parked on a lock no process of the run holds').toBe(false);
      await released;
      expect(server().blockedBy('a')).toBeNull();
    } finally {
      await outsider.end();
    }
  });

  test('a restarted process gets a backend that served no other process, and the crashed one is gone', async () => {
    const crashed = Number(await one(server(), 'a', 'SELECT pg_backend_pid()'));
    await server().drop('a');
    const gone = await rows(server(), 'b', `SELECT 1 FROM pg_stat_activity WHERE pid = ${crashed}`);
    expect(gone).toEqual([]);
    const seen = new Set([crashed, Number(await one(server(), 'b', 'SELECT pg_backend_pid()'))]);
    for (const pid of ['a', 'c']) {
      const backend = Number(await one(server(), pid, 'SELECT pg_backend_pid()'));
      expect(seen.has(backend), `${pid} got backend ${backend}, which served another process`).toBe(false);
      seen.add(backend);
    }
  });

  test("what the session set is gone for the next process: its settings, temporary tables, prepared statements and cursors", async () => {
    await rows(server(), 'a', "SET application_name = 'crashed'");
    await rows(server(), 'a', "SELECT set_config('myapp.owner', 'a', false)");
    await rows(server(), 'a', 'CREATE TEMP TABLE scratch (x int)');
    await rows(server(), 'a', 'PREPARE mine AS SELECT 1');
    await rows(server(), 'a', 'BEGIN');
    await rows(server(), 'a', 'DECLARE held CURSOR WITH HOLD FOR SELECT 1');
    await rows(server(), 'a', 'COMMIT');
    expect(await server().drop('a')).toBe(false);
    for (const pid of ['a', 'b']) {
      expect(await one(server(), pid, 'SHOW application_name')).not.toBe('crashed');
      expect(await one(server(), pid, "SELECT coalesce(current_setting('myapp.owner', true), '')")).toBe('');
      expect(await one(server(), pid, "SELECT to_regclass('pg_temp.scratch')")).toBeNull();
      expect(Number(await one(server(), pid, "SELECT count(*) FROM pg_prepared_statements WHERE name = 'mine'"))).toBe(0);
      expect(Number(await one(server(), pid, "SELECT count(*) FROM pg_cursors WHERE name = 'held'"))).toBe(0);
    }
  });

  test('a process that crashes while its statement waits on a lock lets the holder go on; the row is free after', async () => {
    await rows(server(), 'b', "INSERT INTO orders (customer_id, total_cents) VALUES ('c-2', 200)");
    await rows(server(), 'a', 'BEGIN');
    await rows(server(), 'a', 'SELECT id FROM orders FOR UPDATE');
    await rows(server(), 'b', 'BEGIN');
    const waiting = await server().query('b', 'SELECT id FROM orders FOR UPDATE', [], T0);
    expect(isParked(waiting)).toBe(true);
    expect(server().blockedBy('b')).toBe('a');
    expect(await server().drop('b')).toBe(true);
    await rows(server(), 'a', 'COMMIT');
    await rows(server(), 'c', 'BEGIN');
    expect(await rows(server(), 'c', 'SELECT id FROM orders FOR UPDATE NOWAIT')).toHaveLength(1);
    await rows(server(), 'c', 'COMMIT');
  });
});
