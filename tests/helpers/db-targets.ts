/**
 * One test body, many databases. `dbTargets()` lists the back-ends the lesson's code must behave the
 * same on; `useDbTarget(target)` opens one per test file (inside a `describe`), resets it before
 * every test and closes it after the file:
 *
 *   describe.each(dbTargets())('$name', (target) => {
 *     const t = useDbTarget(target);
 *     it('…', async () => { await claim(t().db, 'k'); … });
 *   });
 *
 * Both targets run `prepareSimDatabase` first, so a bare `now()` is the virtual clock (`setClock`).
 *
 * - `pglite`: one PGlite instance per file (boot ~2 s), wrapped by `pgliteDb` (a pool of one).
 * - `postgres-15`: a fresh database (CREATE DATABASE with a unique name) on the run's server from
 *   tests/setup/postgres-global.ts, so test files can run in parallel; dropped on close.
 *   The `sim.clock` setting behind the virtual `now()` is per connection, so this target's pool has
 *   exactly one connection (`max: 1`, never closed when idle): `setClock` sets it on that connection
 *   and every later statement sees it. `search_path` is also set with `ALTER DATABASE … SET`, so
 *   even a replacement connection would resolve `now()` to `sim.now()` (it would read the epoch
 *   until the next `setClock`). A pool of one also makes node-postgres queue `query()` behind a
 *   checked-out client exactly as `pgliteDb` does. Tests that need true concurrency (several
 *   connections, row locks) need a clock that lives in the database instead, not this helper.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Db } from '../../lib/db';
import { pgliteDb } from '../../lib/db-pglite';
import { nodePostgresDb } from '../../lib/db-node-postgres';
import { prepareSimDatabase, resetSql, setClockSql } from '../../simulations/db/sql-clock';
import { SIM_EPOCH_MS } from '../../simulations/engine/sim-time';

export type TargetName = 'pglite' | 'postgres-15';

/** An open database of one target. */
export interface OpenDb {
  readonly name: TargetName;
  /** The port the lesson's code takes. */
  readonly db: Db;
  /** Run a script of one or more statements without parameters (waits its turn on the pool). */
  exec(sql: string): Promise<void>;
  /** Set the virtual clock: `now()` returns this instant from the next statement on. */
  setClock(ms: number): Promise<void>;
  /** Empty every table, restart the id sequences, set the clock back to `SIM_EPOCH_MS`. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** A back-end that can be opened. */
export interface DbTarget {
  readonly name: TargetName;
  open(extraSchemaSql?: string): Promise<OpenDb>;
}

/** The targets every contract test runs on. `pgUrl` defaults to the run's server (`inject`). */
export function dbTargets(pgUrl?: string): DbTarget[] {
  return [
    { name: 'pglite', open: (extra) => openPglite(extra) },
    { name: 'postgres-15', open: (extra) => openPostgres(pgUrl ?? inject('pgUrl'), extra) },
  ];
}

/**
 * Open `target` before the enclosing describe's tests, reset it before each test, close it after.
 * Returns an accessor for the open database (valid inside tests and hooks).
 */
export function useDbTarget(target: DbTarget, extraSchemaSql = ''): () => OpenDb {
  let open: OpenDb | undefined;
  beforeAll(async () => {
    open = await target.open(extraSchemaSql);
  });
  afterAll(async () => {
    await open?.close();
    open = undefined;
  });
  beforeEach(async () => {
    await open?.reset();
  });
  return () => {
    if (!open) throw new Error(`${target.name} is not open (use the accessor inside a test or hook)`);
    return open;
  };
}

async function openPglite(extraSchemaSql = ''): Promise<OpenDb> {
  const pglite = await PGlite.create();
  await prepareSimDatabase(pglite, extraSchemaSql);
  const db = pgliteDb(pglite);
  // Scripts go through pglite.exec (query() takes one statement), but hold the adapter's one
  // connection meanwhile so they never run inside someone else's transaction.
  const exec = async (sql: string) => {
    const client = await db.connect();
    try {
      await pglite.exec(sql);
    } finally {
      client.release();
    }
  };
  return {
    name: 'pglite',
    db,
    exec,
    setClock: (ms) => exec(setClockSql(ms)),
    reset: () => exec(`${resetSql()} ${setClockSql(SIM_EPOCH_MS)}`),
    close: () => pglite.close(),
  };
}

let databases = 0;

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function openPostgres(serverUrl: string, extraSchemaSql = ''): Promise<OpenDb> {
  const dbName = `eo_test_${process.pid}_${++databases}_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, async (c) => {
    await c.query(`CREATE DATABASE "${dbName}"`);
    await c.query(`ALTER DATABASE "${dbName}" SET search_path = public, sim, pg_catalog`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const db = nodePostgresDb(url.toString(), { max: 1, idleTimeoutMillis: 0 });
  // A query without parameters goes over the simple protocol, which runs several statements.
  const exec = async (sql: string) => {
    await db.query(sql);
  };
  try {
    await prepareSimDatabase({ exec }, extraSchemaSql);
  } catch (err) {
    await db.end();
    throw err;
  }
  return {
    name: 'postgres-15',
    db,
    exec,
    setClock: (ms) => exec(setClockSql(ms)),
    reset: () => exec(`${resetSql()} ${setClockSql(SIM_EPOCH_MS)}`),
    async close() {
      await db.end();
      await admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
    },
  };
}
