/**
 * Virtual time for SQL. A schema `sim` holds `sim.now()`, which reads the setting `sim.clock`;
 * with `search_path = public, sim, pg_catalog` a bare `now()` in the lesson's SQL resolves to it,
 * so leases and defaults run on simulated time while the SQL stays exactly as written.
 * The search path is set before any table is created, because `DEFAULT now()` binds at CREATE TABLE.
 * Only a bare `now()` is shadowed: CURRENT_TIMESTAMP and clock_timestamp() stay real.
 */
import { SCHEMA_SQL, SEQUENCES, TABLES } from '../lib/schema';
import { SIM_EPOCH_MS } from './snapshots';

export { SIM_EPOCH_MS };

export const SEARCH_PATH_SQL = 'SET search_path = public, sim, pg_catalog';

export const CLOCK_SQL = `
CREATE SCHEMA IF NOT EXISTS sim;
CREATE OR REPLACE FUNCTION sim.now() RETURNS timestamptz LANGUAGE sql STABLE AS
$$ SELECT coalesce(current_setting('sim.clock', true), '${new Date(SIM_EPOCH_MS).toISOString()}')::timestamptz $$;
`;

/** Something that runs a script of several statements (PGlite's and node-postgres' exec/query). */
export interface ScriptRunner {
  exec(sql: string): Promise<unknown>;
}

/** The statement that sets the virtual clock on one connection. */
export function setClockSql(nowMs: number): string {
  return `SELECT set_config('sim.clock', '${new Date(nowMs).toISOString()}', false)`;
}

/** Install the virtual clock, then the lesson's schema, on one connection. */
export async function prepareSimDatabase(db: ScriptRunner, extraSchemaSql = ''): Promise<void> {
  await db.exec(`${SEARCH_PATH_SQL}; ${CLOCK_SQL}; ${SCHEMA_SQL}; ${extraSchemaSql}; ${setClockSql(SIM_EPOCH_MS)}`);
}

/** Empty every table and restart its sequences, in one round trip. */
export function resetSql(extraTables: readonly string[] = [], extraSequences: readonly string[] = []): string {
  const deletes = [...extraTables, ...TABLES].map((t) => `DELETE FROM ${t};`);
  // setval, not ALTER SEQUENCE … RESTART: same effect, no DDL, several times cheaper.
  const restarts = [...SEQUENCES, ...extraSequences].map((s) => `SELECT setval('${s}', 1, false);`);
  return [...deletes, ...restarts].join(' ');
}
