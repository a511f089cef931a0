/**
 * Virtual time for SQL. A schema `sim` holds `sim.now()`, which reads the setting `sim.clock`;
 * with `search_path = public, sim, pg_catalog` a bare `now()` in the lesson's SQL resolves to it,
 * so leases and defaults run on simulated time while the SQL stays exactly as written.
 * The search path is set before any table is created, because `DEFAULT now()` binds at CREATE TABLE.
 * `clock_timestamp()`, `statement_timestamp()`, `transaction_timestamp()` and `timeofday()` are
 * shadowed the same way (simulated time stands still within a step, so they all agree). Each
 * transaction begins at an instant of its own: one begun in the same simulated millisecond as
 * another starts a microsecond after it (VirtualClock.transactionInstant), as on a real server.
 * CURRENT_TIMESTAMP and the other time keywords cannot be shadowed, nor a call qualified with
 * `pg_catalog.`: the engine writes them as `now()` casts, and as calls in `sim`, before they run
 * (./sql-words.ts).
 *
 * As in PostgreSQL, `now()` inside a transaction is the time it began, fixed until it ends: both
 * back-ends set the clock to the instant of the BEGIN for the statements of an open transaction
 * (./pglite.ts, ./postgres.ts), and to the step's time outside one. A lease checked late in a long
 * transaction is checked against its start, as on a real server.
 */
import { SCHEMA_SQL, SEQUENCES, TABLES } from '../../lib/schema';
import { MARK_BASELINE_SQL, SCHEMA_GUARD_SQL } from './schema-guard';
import { SIM_EPOCH_MS, isoInstant } from '../engine/sim-time';
import { ADVISORY_SQL } from './advisory-locks';
import { STAT_ACTIVITY_SQL } from './backend-pid';


export const SEARCH_PATH = 'public, sim, pg_catalog';
export const SEARCH_PATH_SQL = `SET search_path = ${SEARCH_PATH}`;
/** The same as an expression, for a reset to put back a search path the learner changed with SET. */
export const SEARCH_PATH_EXPR = `set_config('search_path', '${SEARCH_PATH}', false)`;

/** Schema `sim`: the virtual clock, the connections' pg_stat_activity (./backend-pid.ts), the advisory locks' stand-ins (./advisory-locks.ts), and the guard that undoes the learner's schema changes (./schema-guard.ts). */
export const CLOCK_SQL = `
CREATE SCHEMA IF NOT EXISTS sim;
CREATE OR REPLACE FUNCTION sim.now() RETURNS timestamptz LANGUAGE sql STABLE AS
$$ SELECT coalesce(current_setting('sim.clock', true), '${new Date(SIM_EPOCH_MS).toISOString()}')::timestamptz $$;
CREATE OR REPLACE FUNCTION sim.clock_timestamp() RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT sim.now() $$;
CREATE OR REPLACE FUNCTION sim.statement_timestamp() RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT sim.now() $$;
CREATE OR REPLACE FUNCTION sim.transaction_timestamp() RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT sim.now() $$;
CREATE OR REPLACE FUNCTION sim.timeofday() RETURNS text LANGUAGE sql STABLE AS $$ SELECT to_char(sim.now(), 'Dy Mon DD HH24:MI:SS.US YYYY TZ') $$;
${STAT_ACTIVITY_SQL}
${ADVISORY_SQL}
${SCHEMA_GUARD_SQL}`;

/**
 * A call of a function `CLOCK_SQL` puts on the virtual clock: a statement naming one must see the
 * clock moved first. Unanchored on the left, so a function of the learner's such as `get_now()`,
 * which may call now() inside, counts too.
 */
export const CALLS_CLOCK = /(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday)\s*\(/i;

/** Something that runs a script of several statements (PGlite's and node-postgres' exec/query). */
export interface ScriptRunner {
  exec(sql: string): Promise<unknown>;
}

/** The statement that sets the virtual clock on one connection. */
export function setClockSql(nowMs: number): string {
  return clockUpdate(nowMs).script;
}

/** The clock update as a statement with the instant as its parameter, to prepare once. */
export const SET_CLOCK_STATEMENT = `SELECT set_config('sim.clock', $1, false)`;

/** The clock update for `nowMs`: `SET_CLOCK_STATEMENT` with its parameter, and as a script. */
export function clockUpdate(nowMs: number): { text: string; params: readonly [string]; script: string } {
  if (nowMs !== lastClock.ms) {
    const iso = isoInstant(nowMs);
    lastClock = { ms: nowMs, update: { text: SET_CLOCK_STATEMENT, params: [iso], script: `SELECT set_config('sim.clock', '${iso}', false)` } };
  }
  return lastClock.update;
}

/** The last update made: runs set the same few instants over and over. */
let lastClock: { ms: number; update: ReturnType<typeof clockUpdate> } = { ms: NaN, update: { text: SET_CLOCK_STATEMENT, params: [''], script: '' } };

/** The expression that sets the virtual clock (to combine with others in one SELECT). */
export function setClockExpr(nowMs: number): string {
  return `set_config('sim.clock', '${isoInstant(nowMs)}', false)`;
}

/** Install the virtual clock, then the lesson's schema, on one connection. */
export async function prepareSimDatabase(db: ScriptRunner, extraSchemaSql = ''): Promise<void> {
  // Ends by taking the schema as it now stands as the baseline every reset returns to.
  await db.exec(`${SEARCH_PATH_SQL}; ${CLOCK_SQL}; ${SCHEMA_SQL}; ${extraSchemaSql}; ${setClockSql(SIM_EPOCH_MS)}; ${MARK_BASELINE_SQL}`);
}

/**
 * Empty every table and restart its sequences, in one round trip and two statements (each
 * statement of a script is parsed and planned on its own, so fewer is cheaper). `alsoSelect`
 * adds expressions to the second statement, e.g. `set_config(…)`.
 */
export function resetSql(extraTables: readonly string[] = [], extraSequences: readonly string[] = [], alsoSelect: readonly string[] = []): string {
  const tables = [...extraTables, ...TABLES];
  // One DELETE per table, as data-modifying CTEs of a single statement (no table references another).
  const deletes = tables.slice(0, -1).map((t, i) => `d${i} AS (DELETE FROM ${t})`);
  const empty = `${deletes.length ? `WITH ${deletes.join(', ')} ` : ''}DELETE FROM ${tables[tables.length - 1]};`;
  // setval, not ALTER SEQUENCE … RESTART: same effect, no DDL, several times cheaper.
  const select = [...[...SEQUENCES, ...extraSequences].map((s) => `setval('${s}', 1, false)`), ...alsoSelect];
  return select.length ? `${empty} SELECT ${select.join(', ')};` : empty;
}

/**
 * The same reset as `resetSql` as one statement (every DELETE a data-modifying CTE of the SELECT),
 * so it can be prepared once and then only bound and run: parsing and planning the script took
 * most of a reset's time (~240 → ~55 µs on PGlite). `alsoSelect` as in `resetSql`.
 */
export function resetStatementSql(extraTables: readonly string[] = [], extraSequences: readonly string[] = [], alsoSelect: readonly string[] = []): string {
  const deletes = [...extraTables, ...TABLES].map((t, i) => `d${i} AS (DELETE FROM ${t})`);
  const select = [...[...SEQUENCES, ...extraSequences].map((s) => `setval('${s}', 1, false)`), ...alsoSelect];
  return `WITH ${deletes.join(', ')} SELECT ${select.length ? select.join(', ') : 'true'}`;
}
