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
 */
import pg from 'pg';
import { numericTypes } from '../../lib/db-node-postgres';
import { hostTick } from '../engine/host-tick';
import type { ParkedQuery, SimDatabase } from './port';
import { changesSession, mayReadClock, transactionEffect } from './statement-shape';
import { TABLES } from '../../lib/schema';
import { dropCreatedSql, execAsEngine, SCHEMA_CHANGES_EXPR, SCHEMA_CHANGES_SQL, type SchemaChange } from './schema-guard';
import { prepareSimDatabase, resetSql, SEARCH_PATH_SQL, setClockSql } from './sql-clock';

interface Conn {
  client: pg.Client;
  backendPid: number;
  clockMs: number | null;
  inTx: boolean;
  broken: boolean;
  /** A statement may have changed a session setting since the last reset (`changesSession`). */
  sessionChanged: boolean;
}

interface Parked extends ParkedQuery {
  pid: string;
  backendPid: number;
}

/** How many monitor checks a statement gets before it counts as blocked even without a blocker. */
const MAX_WATCH_ROUNDS = 10_000;

export class PostgresSimDatabase implements SimDatabase {
  readonly name = 'postgres';
  private readonly conns = new Map<string, Conn>();
  private readonly parked = new Set<Parked>();

  private constructor(
    private readonly url: string,
    private readonly admin: pg.Client,
    private readonly extraSchemaSql: string,
  ) {}

  /** Connect to `url` (a database the simulation may fill and empty) and install the schema. */
  static async open(url: string, extraSchemaSql = ''): Promise<PostgresSimDatabase> {
    const admin = new pg.Client({ connectionString: url, types: numericTypes() });
    await admin.connect();
    await prepareSimDatabase({ exec: (sql) => admin.query(sql) }, extraSchemaSql);
    return new PostgresSimDatabase(url, admin, extraSchemaSql);
  }

  private async conn(pid: string): Promise<Conn> {
    const existing = this.conns.get(pid);
    if (existing && !existing.broken) return existing;
    const client = new pg.Client({ connectionString: this.url, types: numericTypes() });
    await client.connect();
    const conn: Conn = { client, backendPid: 0, clockMs: null, inTx: false, broken: false, sessionChanged: false };
    client.on('error', () => {
      conn.broken = true;
    });
    await client.query(SEARCH_PATH_SQL);
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    conn.backendPid = rows[0].pid;
    this.conns.set(pid, conn);
    return conn;
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
    if (conn.clockMs !== nowMs && mayReadClock(text)) {
      await conn.client.query(setClockSql(nowMs));
      conn.clockMs = nowMs;
    }
    const effect = transactionEffect(text);
    if (effect === 'begin') conn.inTx = true;
    if (changesSession(text)) conn.sessionChanged = true;
    let settled = false;
    let value: { rows: Record<string, unknown>[]; affectedRows?: number } | undefined;
    let error: unknown;
    const running = conn.client.query(text, params).then(
      (res) => {
        settled = true;
        value = { rows: res.rows, affectedRows: res.rowCount ?? undefined };
      },
      (err: unknown) => {
        settled = true;
        error = err;
      },
    );
    const blocker = await this.watch(conn, () => settled, running);
    const finish = () => {
      if (effect === 'end') this.endTransaction(conn);
      if (error) throw error;
      return value!;
    };
    if (blocker === null) return finish();
    const parked: Parked = {
      pid,
      backendPid: conn.backendPid,
      blockedBy: this.pidOfBackend(blocker) ?? `backend ${blocker}`,
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

  /** Wait until the statement answers (null) or the server says it waits on a lock (the blocker's backend pid). */
  private async watch(conn: Conn, settled: () => boolean, running: Promise<void>): Promise<number | null> {
    for (let round = 0; round < MAX_WATCH_ROUNDS; round++) {
      await Promise.race([running, hostTick()]);
      if (settled()) return null;
      const { rows } = await this.admin.query<{ blockers: number[] }>('SELECT pg_blocking_pids($1) AS blockers', [conn.backendPid]);
      if (settled()) return null;
      if (rows[0].blockers.length) return rows[0].blockers[0];
    }
    throw new Error('a statement neither finished nor waited on a lock; the server may be overloaded');
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
        if (rows[0].blockers.length) {
          p.blockedBy = this.pidOfBackend(rows[0].blockers[0]) ?? `backend ${rows[0].blockers[0]}`;
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
    for (const p of this.parked) if (p.pid === pid) this.parked.delete(p);
    // Closing the connection is what a crash does: the server rolls back whatever was open.
    await conn.client.end().catch(() => {});
    await this.waitGone(conn.backendPid);
    return hadTx;
  }

  /** Wait until the server has finished with a closed connection (its locks are released). */
  private async waitGone(backendPid: number) {
    for (let round = 0; round < MAX_WATCH_ROUNDS; round++) {
      const { rows } = await this.admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [backendPid]);
      if (!rows.length) return;
      await hostTick();
    }
  }

  async reset(extraTables: readonly string[] = [], extraSequences: readonly string[] = []): Promise<void> {
    for (const pid of [...this.conns.keys()]) {
      const conn = this.conns.get(pid)!;
      // A connection that may carry a SET from this run is closed too: the next run opens a fresh
      // one with the server's defaults, so a setting never reaches another run.
      if (conn.inTx || conn.broken || conn.sessionChanged) await this.drop(pid);
      else conn.clockMs = null;
    }
    this.parked.clear();
    // The reset also counts the learner's schema changes (./schema-guard.ts), in the same round trip.
    const reset = async () => {
      const results = await this.admin.query(resetSql(extraTables, extraSequences, [`${SCHEMA_CHANGES_EXPR} AS schema_changes`]));
      return Number([results].flat().at(-1)?.rows[0]?.schema_changes ?? 0);
    };
    let changes: number;
    try {
      changes = await reset();
    } catch {
      await this.rebuildLesson(extraTables);
      changes = await reset();
    }
    if (changes === 0) return;
    // Undo them within the lesson's own objects: this database may hold other things, so the
    // rebuild drops only the lesson's tables and `sim`.
    const { rows } = await this.admin.query<SchemaChange>(SCHEMA_CHANGES_SQL);
    const script = dropCreatedSql(rows);
    if (script !== null && (await execAsEngine(this.exec_, script).then(() => true, () => false))) return;
    await this.rebuildLesson(extraTables);
    await reset();
  }

  /** Drop the lesson's tables and schema `sim`, then prepare them afresh. */
  private async rebuildLesson(extraTables: readonly string[]): Promise<void> {
    const tables = [...extraTables, ...TABLES].map((t) => `DROP TABLE IF EXISTS ${t} CASCADE`).join('; ');
    await execAsEngine(this.exec_, `${tables}; DROP SCHEMA IF EXISTS sim CASCADE`);
    await prepareSimDatabase({ exec: this.exec_ }, this.extraSchemaSql);
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
    // A rolled-back transaction also undoes a set_config made inside it.
    conn.clockMs = null;
  }

  /** Close every connection. */
  async close(): Promise<void> {
    for (const pid of [...this.conns.keys()]) await this.drop(pid);
    await this.admin.end();
  }
}
