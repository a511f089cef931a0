/**
 * The PGlite back-end of the database port (./port.ts), in the tab and in Node. PGlite is one real
 * session for everyone: a process that opens a transaction owns the session until COMMIT or
 * ROLLBACK, and the others' statements wait, as on a lock. Statements outside transactions
 * interleave freely. A dropped connection (a crash) rolls its transaction back.
 *
 * Each statement is one round trip into PGlite (./pglite-statements.ts): the clock update, when
 * the clock has moved, travels in the same call, and a repeated statement is only bound and run.
 *
 * Over 400 lines because it is one class keeping one session's state (owner, clock, advisory
 * waits, backend pids, prepared statements) consistent across run, drop and reset; the per-process
 * emulations it uses live beside it (./advisory-locks.ts, ./backend-pid.ts).
 */
import { PgliteStatements, type PgliteConnection } from './pglite-statements';
import { clockUpdate, prepareSimDatabase, resetStatementSql, SEARCH_PATH_EXPR, SEARCH_PATH_SQL, setClockExpr, setClockSql } from './sql-clock';
import { SIM_EPOCH_MS } from '../engine/sim-time';
import { dropCreatedSql, DROP_ALL_SCHEMAS_SQL, execAsEngine, GUARD_INTACT_EXPR, SCHEMA_CHANGES_EXPR, SCHEMA_CHANGES_SQL, type SchemaChange } from './schema-guard';
import { memoByText } from '../engine/text-memo';
import type { ParkedQuery, SimDatabase, StatementResult } from './port';
import { definesCode, mayReadClock, mayRunDefinedCode } from './statement-shape';
import { clockInputsAt, clockParamsAt } from './sql-clock-words';
import { executedName, preparedStatement, rollsBackToSavepoint, SESSION_STATE_REFUSAL, setsSessionState, TEMPORARY_REFUSAL, transactionBoundary, usesTemporary } from './sql-words';
import { raisingText } from './pg15-compat';
import { AdvisoryLocks, callsAdvisory, callsRoutine, createsAdvisoryRoutine, mayWaitForAdvisory, rewriteAdvisory, rewriteRoutineAdvisory, routinesCreated, waitOf } from './advisory-locks';
import { BackendPids, callsBackendPid, readsStatActivity, SET_CONNECTIONS, withBackendPid, withStatActivity } from './backend-pid';

/** `mayReadClock` and `transactionBoundary` of a statement (a run repeats a few texts). */
/** Feature not supported (0A000): a TEMP object, which the tab's one session cannot give each process. */
const TEMPORARY_REFUSAL_SQL = raisingText(TEMPORARY_REFUSAL, '0A000');
/** The same for a session-level setting (SET a.custom, set_config(…, false)). */
const SESSION_STATE_REFUSAL_SQL = raisingText(SESSION_STATE_REFUSAL, '0A000');

const statementShape = memoByText((text) => ({ readsClock: mayReadClock(text), runsCode: mayRunDefinedCode(text), effect: transactionBoundary(text), advisory: callsAdvisory(text), advisoryRoutine: createsAdvisoryRoutine(text), backendPid: callsBackendPid(text), statActivity: readsStatActivity(text), toSavepoint: rollsBackToSavepoint(text), temporary: usesTemporary(text), sessionState: setsSessionState(text), prepares: preparedStatement(text) !== null, executes: executedName(text), deallocates: /^\s*deallocate\b/i.test(text) }));
/** A statement reading sim.stat_activity where it named pg_stat_activity. */
const statActivityText = memoByText(withStatActivity);
/** A statement's pg_backend_pid() calls answered for one process: `${backendPid}\0${text}` → the rewritten text. */
const backendPidText = memoByText((key) => {
  const cut = key.indexOf('\0');
  return withBackendPid(key.slice(cut + 1), Number(key.slice(0, cut)));
});
/** A statement's advisory-lock calls made as one process: `${pid}\0${text}` → the rewritten text. */
const advisoryText = memoByText((key) => {
  const cut = key.indexOf('\0');
  return rewriteAdvisory(key.slice(cut + 1), key.slice(0, cut));
});
/** A routine's advisory-lock calls made as whoever calls it (./advisory-locks.ts). */
const routineAdvisoryText = memoByText(rewriteRoutineAdvisory);
/** Sets the locks every stand-in reads, and the process a routine's calls are made as (./advisory-locks.ts). */
const SET_ADVISORY = `SELECT set_config('sim.advisory', $1, false), set_config('sim.pid', $2, false)`;
/** Taken around a statement that may wait inside a transaction, so that waiting does not abort it. */
const WAIT_SAVEPOINT = 'sim_advisory_wait';

/** A statement waiting for an advisory lock another process holds. */
interface AdvisoryWait extends ParkedQuery {
  pid: string;
  text: string;
  params: unknown[] | undefined;
  nowMs: number;
  key: string;
  shared: boolean;
  outcome: Promise<StatementResult> | null;
}
/**
 * Sent ahead of every reset, in the same round trip: every setting back to its value at boot,
 * whatever changed it (a SET, a set_config(…), a `DO … EXECUTE 'SET …'`, a function of the
 * learner's), and every session-level advisory lock released. Reading the settings to learn
 * whether any changed costs far more (`pg_settings` ~7 ms) than resetting them (~30 µs).
 */
const RESET_SESSION_SQL = 'RESET ALL; SELECT pg_advisory_unlock_all()';
/** Restores PL/pgSQL (the guard's triggers and the wipe below are written in it) if it was dropped. */
const PLPGSQL_SQL = 'CREATE EXTENSION IF NOT EXISTS plpgsql';
/** Scripts that may change what a prepared statement returns (CREATE … IF NOT EXISTS of what exists does not). */
const DDL = /\b(ALTER|DROP|DISCARD|DEALLOCATE|RENAME)\b|\bCREATE\b(?!\s+(TABLE|INDEX|UNIQUE\s+INDEX|SCHEMA)\s+IF\s+NOT\s+EXISTS\b)/i;

/** The engine's PGlite back-end: one instance, kept for the whole session, reset between runs. */
export class PgliteSimDatabase implements SimDatabase {
  /** One connection for every process and for `inspect`: an open transaction's writes show. */
  readonly inspectSeesUncommitted = true;
  readonly name = 'pglite';
  private owner: string | null = null;
  private clockMs: number | null = null;
  /** When the open transaction began (simulated ms): its now(), fixed until it ends. */
  private txClockMs: number | null = null;
  /** SQL ran outside the engine since the last reset (the query panel): it may have left a transaction open. */
  private outsideSql = false;
  private readonly statements: PgliteStatements;
  /** The reset statement without extra tables (its text never changes). */
  private resetText: string | undefined;
  /** Advisory locks per process: PGlite's one session would grant every process the same lock. */
  private readonly advisory = new AdvisoryLocks();
  /** The learner's routines that take advisory locks: a statement calling one runs as its process. */
  private readonly advisoryRoutines = new Set<string>();
  /** Statements still waiting for an advisory lock, oldest first (one leaves the set as it settles). */
  private readonly waits = new Set<AdvisoryWait>();
  private waking = false;
  /** Each process's pg_backend_pid(): on PGlite's one session they would all share one. */
  private readonly backendPids = new BackendPids();
  /** Whether a process ran PREPARE since the last reset: the reset deallocates what it prepared. */
  private learnerPrepared = false;
  /** Whether the learner's code defined a function, trigger, view or rule since the last reset (`definesCode`). */
  private codeDefined = false;
  /**
   * What each process prepared since the last reset: name → the statement and who prepared it. On
   * PostgreSQL each connection prepares its own; here they share one session, where a second
   * process's PREPARE of the same name would fail with "already exists".
   */
  private readonly preparedBy = new Map<string, { text: string; pids: Set<string> }>();

  private constructor(
    private readonly pg: PgliteConnection,
    private readonly extraSchemaSql: string,
  ) {
    this.statements = new PgliteStatements(pg);
  }

  /** Install the virtual clock and the schema (plus a scenario's extra tables) on `pg`. */
  static async open(pg: PgliteConnection, extraSchemaSql = ''): Promise<PgliteSimDatabase> {
    await prepareSimDatabase(pg, extraSchemaSql);
    return new PgliteSimDatabase(pg, extraSchemaSql);
  }

  /**
   * Use a database that already holds exactly this build's schema, the clock and the guard with
   * its baseline: one booted from the prebuilt data directory whose fingerprint matched
   * (components/db/prebuilt-datadir.ts). Only this session's settings are set (the search path and
   * the clock, which a data directory does not carry); the schema script is not run again. On a
   * cold database that script is most of a boot's SQL (~50–120 ms in Node, ~350 ms in a tab
   * starting up). Anything out of place is still caught by the first reset, like any other change.
   */
  static async attach(pg: PgliteConnection): Promise<PgliteSimDatabase> {
    await pg.exec(`${SEARCH_PATH_SQL}; ${setClockSql(SIM_EPOCH_MS)}`);
    return new PgliteSimDatabase(pg, '');
  }

  canRun(pid: string): boolean {
    return this.owner === null || this.owner === pid;
  }

  blockedBy(pid: string): string | null {
    return this.canRun(pid) ? null : this.owner;
  }

  inTransaction(pid: string): boolean {
    return this.owner === pid;
  }

  async query(pid: string, text: string, params: unknown[] | undefined, nowMs: number): Promise<StatementResult | ParkedQuery> {
    if (!this.canRun(pid)) throw new Error(`${pid} ran a statement while ${this.owner} holds the connection`);
    if (!statementShape(text).advisory && !(this.advisoryRoutines.size && callsRoutine(text, this.advisoryRoutines))) {
      try {
        return await this.run(pid, text, params, nowMs);
      } finally {
        if (this.waits.size) await this.wakeWaiters(nowMs);
      }
    }
    const tried = await this.tryAdvisory(pid, text, params, nowMs);
    if ('result' in tried) {
      if (this.waits.size) await this.wakeWaiters(nowMs);
      return tried.result;
    }
    const { holder, key } = tried.wait;
    if (this.waitsFor(holder, pid)) {
      // PostgreSQL's deadlock check fails the statement that closed the cycle.
      throw await this.deadlock(pid, holder, key);
    }
    const wait: AdvisoryWait = {
      pid,
      text,
      params,
      nowMs,
      key,
      shared: /_shared\s*\(/i.test(text),
      outcome: null,
      blockedBy: holder,
      settled: () => wait.outcome !== null,
      result: () => wait.outcome!,
    };
    this.waits.add(wait);
    return wait;
  }

  /** One statement on `pid`'s behalf, with the session's owner kept. */
  private async run(pid: string, text: string, params: unknown[] | undefined, nowMs: number): Promise<StatementResult> {
    let shape = statementShape(text);
    const preparing = shape.prepares ? preparedStatement(text) : null;
    // A DEALLOCATE removes it for every process here: from then on each PREPARE goes to the database.
    if (shape.deallocates) this.preparedBy.clear();
    // A process that runs a statement another prepared (it found it in pg_prepared_statements, which
    // all share here) counts among its holders: another's crash does not take it away from it.
    if (shape.executes) this.preparedBy.get(shape.executes)?.pids.add(pid);
    if (preparing) {
      this.learnerPrepared = true;
      const known = this.preparedBy.get(preparing.name);
      if (known && known.text === preparing.text && !known.pids.has(pid) && !this.statements.inFailedTransaction) {
        // Another process prepared the very same statement: on its own connection this process's
        // PREPARE would succeed, and its EXECUTE run that text. (One that prepares twice fails, as on PostgreSQL.)
        known.pids.add(pid);
        return { rows: [], affectedRows: 0, rowCount: null };
      }
      if (known && known.pids.size === 0 && known.text !== preparing.text && !this.statements.inFailedTransaction) {
        // Every connection that held it is gone: the name is free again, for another statement too.
        this.preparedBy.delete(preparing.name);
        await this.pg.exec(`DEALLOCATE "${preparing.name.replace(/"/g, '""')}"`).catch(() => {});
      }
    }
    if (shape.temporary || shape.sessionState) {
      // Failed inside the database, as a statement PostgreSQL rejects: an open transaction aborts.
      text = shape.temporary ? TEMPORARY_REFUSAL_SQL : SESSION_STATE_REFUSAL_SQL;
      params = [];
      shape = statementShape(text);
    }
    if (shape.advisoryRoutine) {
      for (const name of routinesCreated(text)) this.advisoryRoutines.add(name);
      text = routineAdvisoryText(text);
      shape = statementShape(text);
    }
    if (shape.backendPid) {
      text = backendPidText(`${this.backendPids.of(pid, nowMs)}\0${text}`);
      shape = statementShape(text);
    }
    if (shape.statActivity) {
      // Fails only in an aborted transaction, where the statement meets the same error.
      this.backendPids.of(pid, nowMs);
      await this.statements.query(SET_CONNECTIONS, [this.backendPids.connections(pid, this.owner)]).catch(() => undefined);
      text = statActivityText(text);
      // Its times are the virtual clock's.
      shape = { ...statementShape(text), readsClock: true };
    }
    const effect = shape.effect;
    if (effect === 'begin') {
      this.owner = pid;
      this.txClockMs = nowMs;
    }
    // now() inside a transaction is the time it began, as in PostgreSQL; outside, the step's time.
    const at = this.owner === pid && this.txClockMs !== null ? this.txClockMs : nowMs;
    if (!this.codeDefined && definesCode(text)) this.codeDefined = true;
    const clockSql = this.clockMs !== at && (shape.readsClock || (this.codeDefined && shape.runsCode)) ? clockUpdate(at) : undefined;
    try {
      const res = await this.statements.query(clockInputsAt(text, at), clockParamsAt(params, at), clockSql);
      if (clockSql) this.clockMs = at;
      if (preparing) {
        const known = this.preparedBy.get(preparing.name);
        if (known) known.pids.add(pid);
        else this.preparedBy.set(preparing.name, { text: preparing.text, pids: new Set([pid]) });
      }
      return res;
    } catch (err) {
      // The clock update may or may not have happened: set it again next time.
      if (clockSql) this.clockMs = null;
      throw err;
    } finally {
      if (effect === 'end' && this.owner === pid) this.endTransaction(pid);
      // ROLLBACK TO SAVEPOINT undid a clock set since the savepoint: set it again next time.
      else if (shape.toSavepoint) this.clockMs = null;
      // A transaction the text did not announce (a BEGIN behind a comment) still owns the session.
      else if (this.owner === null && this.statements.inTransaction) {
        this.owner = pid;
        this.txClockMs = nowMs;
      }
    }
  }

  /**
   * A statement calling advisory-lock functions, with each call made as `pid` against the locks
   * the other processes hold (./advisory-locks.ts); `wait` when it must wait for one of them.
   */
  private async tryAdvisory(pid: string, text: string, params: unknown[] | undefined, nowMs: number): Promise<{ result: StatementResult } | { wait: { holder: string; key: string } }> {
    const sql = advisoryText(`${pid}\0${text}`);
    // Fails only in an aborted transaction, where the statement meets the same error.
    await this.statements.query(SET_ADVISORY, [this.advisory.heldSetting(), pid]).catch(() => undefined);
    // A call of a routine of the learner's may wait inside it.
    const savepoint = this.owner === pid && (mayWaitForAdvisory(text) || !statementShape(text).advisory);
    if (savepoint) await this.statements.query(`SAVEPOINT ${WAIT_SAVEPOINT}`);
    this.statements.keepNotices = true;
    try {
      const result = await this.run(pid, sql, params, nowMs);
      this.advisory.apply(pid, this.statements.notices);
      if (savepoint) await this.statements.query(`RELEASE SAVEPOINT ${WAIT_SAVEPOINT}`);
      if (!this.inTransaction(pid)) this.advisory.endTransaction(pid);
      return { result };
    } catch (err) {
      const wait = waitOf(err);
      if (wait) {
        // Nothing of the statement happened: it runs again, whole, once the lock is free.
        if (savepoint) await this.statements.query(`ROLLBACK TO SAVEPOINT ${WAIT_SAVEPOINT}; RELEASE SAVEPOINT ${WAIT_SAVEPOINT}`);
        return { wait };
      }
      // Session locks taken before the statement failed stay taken, as on PostgreSQL.
      this.advisory.apply(pid, this.statements.notices);
      if (!this.inTransaction(pid)) this.advisory.endTransaction(pid);
      throw err;
    } finally {
      this.statements.keepNotices = false;
      this.statements.notices.length = 0;
    }
  }

  /** Whether `from` waits, directly or through others, for a lock `to` holds. */
  private waitsFor(from: string, to: string): boolean {
    const seen = new Set<string>();
    let at: string | undefined = from;
    while (at !== undefined && !seen.has(at)) {
      if (at === to) return true;
      seen.add(at);
      at = [...this.waits].find((w) => w.pid === at)?.blockedBy;
    }
    return false;
  }

  /** PostgreSQL's deadlock error for `pid`'s statement, raised by the server so its transaction aborts too. */
  private async deadlock(pid: string, holder: string, key: string): Promise<unknown> {
    const detail = `${pid} waits for the advisory lock ${key} held by ${holder}, which waits for a lock ${pid} holds`;
    const sql = `DO $dl$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01', DETAIL = '${detail.replace(/'/g, "''")}'; END $dl$`;
    return this.run(pid, sql, [], this.clockMs ?? SIM_EPOCH_MS).then(
      () => new Error('deadlock detected'),
      (err: unknown) => err,
    );
  }

  /** Run every waiting statement whose lock is free now, in the order they began to wait (PostgreSQL's queue). */
  private async wakeWaiters(nowMs: number | null): Promise<void> {
    if (this.waking) return;
    this.waking = true;
    try {
      for (const wait of [...this.waits]) {
        if (this.advisory.conflicts(wait.pid, wait.key, wait.shared) || !this.canRun(wait.pid)) continue;
        let tried: Awaited<ReturnType<PgliteSimDatabase['tryAdvisory']>> | { error: unknown };
        try {
          tried = await this.tryAdvisory(wait.pid, wait.text, wait.params, nowMs ?? wait.nowMs);
        } catch (error) {
          tried = { error };
        }
        if ('wait' in tried) {
          wait.key = tried.wait.key;
          wait.blockedBy = tried.wait.holder;
          continue;
        }
        wait.outcome = 'error' in tried ? Promise.reject(tried.error) : Promise.resolve(tried.result);
        wait.outcome.catch(() => undefined);
        this.waits.delete(wait);
      }
    } finally {
      this.waking = false;
    }
  }

  async drop(pid: string): Promise<boolean> {
    // A crashed process's connection closes: its waits end and every advisory lock of it is freed.
    for (const wait of this.waits) if (wait.pid === pid) this.waits.delete(wait);
    const held = this.advisory.holdsAny(pid);
    this.advisory.drop(pid);
    this.backendPids.forget(pid);
    let rolledBack = false;
    if (this.owner === pid) {
      await this.pg.exec('ROLLBACK');
      this.endTransaction(pid);
      rolledBack = true;
    }
    // Its prepared statements went with its connection: restarted, it prepares them again, which
    // succeeds as another process's PREPARE of the same statement does (the statement itself stays
    // in the one session, where another process may have found it in pg_prepared_statements).
    for (const prepared of this.preparedBy.values()) prepared.pids.delete(pid);
    if (this.waits.size && (held || rolledBack)) await this.wakeWaiters(this.clockMs);
    return rolledBack;
  }

  async reset(extraTables: readonly string[] = [], extraSequences: readonly string[] = []): Promise<void> {
    // An open or aborted transaction, the engine's or one it did not see begin (the query panel's
    // `BEGIN; SELECT 1/0`): rolled back, or every statement of the next run would fail.
    if (this.owner !== null || this.outsideSql || this.statements.inTransaction) await this.pg.exec('ROLLBACK');
    this.owner = null;
    this.txClockMs = null;
    this.advisory.clear();
    this.advisoryRoutines.clear();
    this.waits.clear();
    this.backendPids.clear();
    this.outsideSql = false;
    this.preparedBy.clear();
    this.codeDefined = false;
    if (this.learnerPrepared) {
      this.learnerPrepared = false;
      await this.pg.exec(this.statements.deallocateOthersSql);
    }
    // One round trip: empty the tables, start the clock, and count our prepared statements (the
    // query panel shares this connection and may have run DEALLOCATE or DISCARD). One statement,
    // prepared like the engine's own (and counted with them), so each run only binds and runs it.
    // It also counts the schema changes the learner's code made (./schema-guard.ts).
    // And it puts back the search path and the clock, after RESET_SESSION_SQL reset every setting.
    const also = [SEARCH_PATH_EXPR, setClockExpr(SIM_EPOCH_MS), `${this.statements.countSql} AS prepared`, `${SCHEMA_CHANGES_EXPR} AS schema_changes`, `${GUARD_INTACT_EXPR} AS guard_intact`];
    const sql = extraTables.length || extraSequences.length ? resetStatementSql(extraTables, extraSequences, also) : (this.resetText ??= resetStatementSql([], [], also));
    let rows: Record<string, unknown>[];
    try {
      ({ rows } = await this.statements.query(sql, [], RESET_SESSION_SQL));
    } catch {
      // A table of the lesson (or the guard itself) is gone or changed beyond a DELETE: start over.
      await this.rebuildSchema();
      ({ rows } = await this.statements.query(sql));
    }
    if (rows[0]?.guard_intact !== true) {
      // The guard's own triggers were dropped, disabled or replaced: what it missed is unknown.
      await this.rebuildSchema();
      ({ rows } = await this.statements.query(sql));
    }
    // After a rebuild the prepared statements are gone (the count above is stale): run it once more.
    if (Number(rows[0]?.schema_changes ?? 0) > 0 && (await this.undoSchemaChanges()) === 'rebuilt') {
      ({ rows } = await this.statements.query(sql));
    }
    this.clockMs = SIM_EPOCH_MS;
    await this.statements.verify(Number(rows[0]?.prepared ?? -1));
  }

  /** Drop what the learner created since the last reset, or rebuild the schema when that is not enough. */
  private async undoSchemaChanges(): Promise<'dropped' | 'rebuilt'> {
    const { rows } = await this.statements.query(SCHEMA_CHANGES_SQL);
    const script = dropCreatedSql(rows as unknown as SchemaChange[]);
    if (script !== null && (await execAsEngine(this.exec_, script).then(() => true, () => false))) return 'dropped';
    await this.rebuildSchema();
    return 'rebuilt';
  }

  /** The lesson's schema afresh: every schema dropped (this PGlite belongs to the simulation alone) and prepared again. */
  private async rebuildSchema(): Promise<void> {
    await this.pg.exec(PLPGSQL_SQL);
    await execAsEngine(this.exec_, DROP_ALL_SCHEMAS_SQL);
    await prepareSimDatabase(this.pg, this.extraSchemaSql);
    // Every statement prepared so far named tables that are gone.
    await this.statements.forgetAll();
  }

  /** PGlite's exec, as execAsEngine takes it. */
  private readonly exec_ = (sql: string) => this.pg.exec(sql);


  /**
   * SQL ran on this connection outside the engine (the lab's query panel): forget the prepared
   * statements, so a table changed by ALTER cannot meet a statement prepared for its old shape, and
   * roll back at the next reset a transaction it left open (its settings are reset by every reset).
   */
  async afterOutsideSql(): Promise<void> {
    this.outsideSql = true;
    await this.statements.forgetAll();
  }

  async inspect(text: string, params?: unknown[]) {
    // Checkers and the lab's snapshots run the same reads after every run or step: prepared too.
    return (await this.statements.query(text, params)).rows;
  }

  async exec(sql: string): Promise<void> {
    // The engine's own scripts (a scenario's setup): their schema changes are not the learner's.
    await execAsEngine(this.exec_, sql);
    // A script that changes the schema may change what a prepared statement returns.
    if (DDL.test(sql)) await this.statements.forgetAll();
  }

  private endTransaction(pid: string) {
    this.owner = null;
    this.txClockMs = null;
    this.advisory.endTransaction(pid);
    // A rolled-back transaction also undoes a set_config made inside it.
    this.clockMs = null;
  }
}
