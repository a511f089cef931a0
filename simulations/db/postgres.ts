/**
 * The engine on a real PostgreSQL server: one connection per process, so transactions really
 * overlap and row locks really block. Node-only (node-postgres); import it lazily.
 *
 * A statement that waits on a lock must not stall the scheduler (the holder can only finish when
 * it is scheduled), so a statement is watched: if `pg_blocking_pids()` names a blocker before it
 * answers, it is *parked* — the process waits, others run — and the engine asks `settle()` before
 * every choice, which waits until each parked statement has either finished or is still blocked.
 * That makes the point at which a lock is released part of the schedule, not of host timing.
 * The virtual clock is per connection: it is set before a statement whenever it has moved.
 *
 * Every run starts clean: each process's session is reset with DISCARD ALL (or closed), and the
 * database holds the lesson's declared schema (lib/schema.ts), never "what is there now": a new
 * command rebuilds it, and a run that changed it is undone (./schema-guard.ts). The simulation owns
 * the schemas `public` and `sim` of the database it is given; nothing else in it is touched.
 */
import pg from 'pg';
import { numericTypes } from '../../lib/db-node-postgres';
import { hostTick } from '../engine/host-tick';
import type { ParkedQuery, SimDatabase, StatementResult } from './port';
import { definesCode, mayReadClock, mayRunDefinedCode } from './statement-shape';
import { clockInputsAt, clockParamsAt } from './sql-clock-words';
import { rollsBackToSavepoint, transactionBoundary } from './sql-words';
import { TABLES } from '../../lib/schema';
import { dropCreatedSql, dropStatements, execAsEngine, GUARD_INSTALLED_SQL, GUARD_INTACT_EXPR, GUARD_TRIGGERS_DROP_SQL, SCHEMA_CHANGES_EXPR, SCHEMA_CHANGES_SQL, type SchemaChange } from './schema-guard';
import { prepareSimDatabase, resetSql, SEARCH_PATH, setClockSql } from './sql-clock';

interface Conn {
  client: pg.Client;
  backendPid: number;
  clockMs: number | null;
  /** When the open transaction began (simulated ms): its now(), fixed until it ends. */
  txClockMs: number | null;
  inTx: boolean;
  broken: boolean;
}

interface Parked extends ParkedQuery {
  pid: string;
  backendPid: number;
}

/**
 * How many monitor checks (a `pg_blocking_pids` round trip each, about 0.1 ms on a quiet machine)
 * a statement gets to finish or wait on a lock, and a closed backend gets to go away. Generous: a
 * loaded machine makes every round slower and every statement longer, and giving up early blames
 * the learner's code for the machine (a statement that neither finishes nor waits, like
 * `SELECT pg_sleep(600)`, still fails the run, as it would be stopped in the tab).
 */
const MAX_WATCH_ROUNDS = 300_000;
/** Connections kept open ahead for processes that restart (`openSpare`). */
const MAX_SPARE_CONNECTIONS = 4;

/**
 * The search path, and the time zone the tab's PGlite runs in (UTC, whatever the server's own),
 * as start-up options of every process's connection: they are then the values DISCARD ALL (and
 * RESET ALL) return to, so a reset needs no SET after it. No spaces: the option string is split on them.
 */
const CONNECTION_OPTIONS = `-c search_path=${SEARCH_PATH.replaceAll(' ', '')} -c TimeZone=UTC`;

export class PostgresSimDatabase implements SimDatabase {
  readonly name = 'postgres';
  private readonly conns = new Map<string, Conn>();
  /** Whether the learner's code defined a function, trigger, view or rule since the last reset (`definesCode`). */
  private codeDefined = false;
  private readonly parked = new Set<Parked>();
  /** Connections opened ahead for the next process that needs one (`openSpare`). */
  private readonly spare: Promise<Conn | null>[] = [];
  /** Whether the schema guard's event triggers could be installed (they need a superuser). */
  private guarded = false;

  private constructor(
    private readonly url: string,
    private readonly admin: pg.Client,
    private readonly extraSchemaSql: string,
  ) {}

  /**
   * Connect to `url` (a database the simulation may fill and empty) and build the lesson's schema
   * afresh: whatever an earlier command left there (a trigger on a lesson table, a table a run
   * created and no reset dropped) is gone, so it can never become the baseline.
   */
  static async open(url: string, extraSchemaSql = ''): Promise<PostgresSimDatabase> {
    const admin = new pg.Client({ connectionString: url, types: numericTypes() });
    await admin.connect();
    const db = new PostgresSimDatabase(url, admin, extraSchemaSql);
    await db.rebuildLesson();
    return db;
  }

  private async conn(pid: string): Promise<Conn> {
    const existing = this.conns.get(pid);
    if (existing && !existing.broken) return existing;
    let conn: Conn | null = null;
    while (!conn && this.spare.length) {
      const ready = await this.spare.shift()!;
      if (ready && !ready.broken) conn = ready;
      else await ready?.client.end().catch(() => {});
    }
    conn ??= await this.open();
    this.conns.set(pid, conn);
    return conn;
  }

  /** A new connection of its own (a backend of its own on the server), for any process. */
  private async open(): Promise<Conn> {
    const client = new pg.Client({ connectionString: this.url, types: numericTypes(), options: CONNECTION_OPTIONS });
    const conn: Conn = { client, backendPid: 0, clockMs: null, txClockMs: null, inTx: false, broken: false };
    client.on('error', () => {
      conn.broken = true;
    });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    conn.backendPid = rows[0].pid;
    return conn;
  }

  /**
   * A connection opened while a dropped one is closed and waited out: a crashed process usually
   * restarts, and opening one takes about as long as waiting out the last (a backend forked and
   * authenticated). The next process without a connection takes it, so no process ever gets a
   * backend that served another one.
   */
  private openSpare() {
    if (this.spare.length < MAX_SPARE_CONNECTIONS) this.spare.push(this.open().catch(() => null));
  }

  canRun(): boolean {
    return true;
  }

  blockedBy(pid: string): string | null {
    for (const p of this.parked) if (p.pid === pid) return p.blockedBy;
    return null;
  }

  inTransaction(pid: string): boolean {
    return this.conns.get(pid)?.inTx ?? false;
  }

  async query(pid: string, text: string, params: unknown[] | undefined, nowMs: number) {
    const conn = await this.conn(pid);
    const effect = transactionBoundary(text);
    if (effect === 'begin') conn.txClockMs = nowMs;
    // now() inside a transaction is the time it began (PostgreSQL's own rule, on the virtual clock).
    const at = conn.txClockMs ?? nowMs;
    if (!this.codeDefined && definesCode(text)) this.codeDefined = true;
    if (conn.clockMs !== at && (mayReadClock(text) || (this.codeDefined && mayRunDefinedCode(text)))) {
      await conn.client.query(setClockSql(at));
      conn.clockMs = at;
    }
    if (effect === 'begin') conn.inTx = true;
    let settled = false;
    let value: StatementResult | undefined;
    let error: unknown;
    const running = conn.client.query(clockInputsAt(text, at), clockParamsAt(params, at)).then(
      (res) => {
        settled = true;
        value = { rows: res.rows, affectedRows: res.rowCount ?? undefined, rowCount: res.rowCount ?? null };
      },
      (err: unknown) => {
        settled = true;
        error = err;
      },
    );
    const blocker = await this.watch(conn, () => settled, running);
    const finish = () => {
      if (effect === 'end') this.endTransaction(conn);
      // ROLLBACK TO SAVEPOINT undid a clock set since the savepoint: set it again next time.
      else if (rollsBackToSavepoint(text)) conn.clockMs = null;
      if (error) throw error;
      return value!;
    };
    if (blocker === null) return finish();
    const parked: Parked = {
      pid,
      backendPid: conn.backendPid,
      blockedBy: blocker,
      settled: () => settled,
      result: async () => {
        await running;
        this.parked.delete(parked);
        return finish();
      },
    };
    this.parked.add(parked);
    return parked;
  }

  /** Wait until the statement answers (null) or the server says it waits on another process's lock (that process). */
  private async watch(conn: Conn, settled: () => boolean, running: Promise<void>): Promise<string | null> {
    for (let round = 0; round < MAX_WATCH_ROUNDS; round++) {
      await Promise.race([running, hostTick()]);
      if (settled()) return null;
      const { rows } = await this.admin.query<{ blockers: number[] }>('SELECT pg_blocking_pids($1) AS blockers', [conn.backendPid]);
      if (settled()) return null;
      const blocker = this.processBlocker(rows[0].blockers);
      if (blocker !== null) return blocker;
    }
    throw new Error(`a statement neither finished nor waited on another process's lock within ${MAX_WATCH_ROUNDS} checks; the server may be overloaded`);
  }

  /**
   * The process of this run the first of `blockers` (backend pids) serves, or null. Any other
   * backend, one closed by a crash and still rolling back or another client of the server, is no
   * process the scheduler could run to release the lock: the statement waits it out as a statement
   * waits on a busy server, instead of parking the process on a lock nothing in the run holds.
   */
  private processBlocker(blockers: readonly number[]): string | null {
    for (const b of blockers) {
      const pid = this.pidOfBackend(b);
      if (pid !== null) return pid;
    }
    return null;
  }

  private pidOfBackend(backendPid: number): string | null {
    for (const [pid, c] of this.conns) if (c.backendPid === backendPid) return pid;
    return null;
  }

  /** Before each choice: every parked statement has finished or is confirmed still blocked. */
  async settle(): Promise<void> {
    for (const p of this.parked) {
      if (p.settled()) continue;
      const conn = this.conns.get(p.pid);
      if (!conn) continue;
      for (let round = 0; round < MAX_WATCH_ROUNDS && !p.settled(); round++) {
        const { rows } = await this.admin.query<{ blockers: number[] }>('SELECT pg_blocking_pids($1) AS blockers', [p.backendPid]);
        if (p.settled()) break;
        const blocker = this.processBlocker(rows[0].blockers);
        if (blocker !== null) {
          p.blockedBy = blocker;
          break;
        }
        await hostTick();
      }
    }
  }

  async drop(pid: string): Promise<boolean> {
    const conn = this.conns.get(pid);
    if (!conn) return false;
    const hadTx = conn.inTx;
    this.conns.delete(pid);
    const waiting = [...this.parked].some((p) => p.pid === pid);
    for (const p of this.parked) if (p.pid === pid) this.parked.delete(p);
    this.openSpare();
    // Closing the connection is what a crash does: the server rolls back whatever was open. A
    // backend waiting on a lock does not read its socket until it gets the lock, so it is ended
    // from the admin connection, as a client that died mid-statement would be at the next check.
    if (waiting) await this.admin.query('SELECT pg_terminate_backend($1)', [conn.backendPid]).catch(() => {});
    await conn.client.end().catch(() => {});
    await this.waitGone(conn.backendPid);
    return hadTx;
  }

  /**
   * Wait until the server has finished with a closed connection (its locks are released): a
   * backend left running would hold locks into the next schedule, or the next file, on a machine
   * too loaded to end it in time. One that outlasts the watch is terminated, and waited out again.
   */
  private async waitGone(backendPid: number) {
    for (const last of [false, true]) {
      for (let round = 0; round < MAX_WATCH_ROUNDS; round++) {
        const { rows } = await this.admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [backendPid]);
        if (!rows.length) return;
        await hostTick();
      }
      if (last) throw new Error(`backend ${backendPid} of a closed connection is still running; the server may be overloaded`);
      await this.admin.query('SELECT pg_terminate_backend($1)', [backendPid]).catch(() => {});
    }
  }

  async reset(extraTables: readonly string[] = [], extraSequences: readonly string[] = []): Promise<void> {
    this.codeDefined = false;
    // Every process's session as it was at connect. DISCARD ALL puts back every setting, however
    // it was changed (a SET, set_config, `DO … EXECUTE 'SET …'`), and releases advisory locks,
    // temporary tables and prepared statements, as a connection pooler does between clients. It
    // refuses to run inside a transaction block, so a connection left in a transaction the engine
    // did not see begin is closed like one it did (the server rolls it back); so is one waiting on
    // a lock. All at once: one connection's reset may release what another waits for.
    await Promise.all(
      [...this.conns].map(async ([pid, conn]) => {
        const waiting = [...this.parked].some((p) => p.pid === pid);
        if (conn.inTx || conn.broken || waiting) return void (await this.drop(pid));
        try {
          await conn.client.query('DISCARD ALL');
          conn.clockMs = null;
        } catch {
          await this.drop(pid);
        }
      }),
    );
    this.parked.clear();
    // The reset also counts the learner's schema changes (./schema-guard.ts), in the same round
    // trip, and (where the guard is installed) checks that the guard itself is intact.
    const also = [`${SCHEMA_CHANGES_EXPR} AS schema_changes`, ...(this.guarded ? [`${GUARD_INTACT_EXPR} AS guard_intact`] : [])];
    const reset = async () => {
      const results = await this.admin.query(resetSql(extraTables, extraSequences, also));
      const row = [results].flat().at(-1)?.rows[0];
      if (this.guarded && row?.guard_intact !== true) throw new Error('the schema guard was changed');
      return Number(row?.schema_changes ?? 0);
    };
    let changes: number;
    try {
      changes = await reset();
    } catch {
      await this.rebuildLesson();
      changes = await reset();
    }
    if (changes === 0) return;
    const { rows } = await this.admin.query<SchemaChange>(SCHEMA_CHANGES_SQL);
    const script = dropCreatedSql(rows);
    if (script !== null && (await execAsEngine(this.exec_, script).then(() => true, () => false))) return;
    await this.rebuildLesson();
    await reset();
  }

  /**
   * The lesson's declared schema afresh: PL/pgSQL back if it was dropped, what the learner's code
   * created dropped by name (its own schemas too), the guard's event triggers (whoever made them)
   * dropped, and `public` and `sim` dropped and prepared again. Where `public` cannot be dropped
   * (not its owner), the lesson's tables are.
   */
  private async rebuildLesson(): Promise<void> {
    await this.admin.query('CREATE EXTENSION IF NOT EXISTS plpgsql');
    const noted = await this.admin.query<SchemaChange>(SCHEMA_CHANGES_SQL).then((r) => r.rows, () => [] as SchemaChange[]);
    // One by one: the first that fails must not keep the others.
    for (const drop of dropStatements(noted)) await execAsEngine(this.exec_, drop).catch(() => {});
    const wipe = `${GUARD_TRIGGERS_DROP_SQL}; DROP SCHEMA IF EXISTS sim CASCADE`;
    await execAsEngine(this.exec_, `${wipe}; DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public`).catch(() =>
      execAsEngine(this.exec_, `${wipe}; ${TABLES.map((t) => `DROP TABLE IF EXISTS ${t} CASCADE`).join('; ')}`),
    );
    await prepareSimDatabase({ exec: this.exec_ }, this.extraSchemaSql);
    const { rows } = await this.admin.query<{ installed: boolean }>(GUARD_INSTALLED_SQL);
    this.guarded = rows[0]?.installed === true;
  }

  /** The admin connection's script runner, as execAsEngine and prepareSimDatabase take it. */
  private readonly exec_ = (sql: string) => this.admin.query(sql);

  async inspect(text: string, params?: unknown[]) {
    return (await this.admin.query(text, params)).rows;
  }

  async exec(sql: string): Promise<void> {
    // The engine's own scripts (a scenario's setup): their schema changes are not the learner's.
    await execAsEngine(this.exec_, sql);
  }

  private endTransaction(conn: Conn) {
    conn.inTx = false;
    conn.txClockMs = null;
    // A rolled-back transaction also undoes a set_config made inside it.
    conn.clockMs = null;
  }

  /** Close every connection. */
  async close(): Promise<void> {
    const spares = await Promise.all(this.spare.splice(0));
    const all = [...this.conns.values(), ...spares.filter((c): c is Conn => c !== null)];
    this.conns.clear();
    this.parked.clear();
    // Their backends gone before this returns, as each crash's is: none holds a lock any more.
    for (const conn of all) await conn.client.end().catch(() => {});
    for (const conn of all) await this.waitGone(conn.backendPid);
    await this.admin.end();
  }
}
