/**
 * The database port: what the engine asks of a database back-end, and nothing about how. Every
 * process has its own logical connection; the engine asks before each statement whether that
 * connection may run now, and a back-end may park a statement that waits on a lock another process
 * holds. Implementations: ./pglite.ts (one PGlite session, in the tab and in Node) and ./postgres.ts
 * (a real server, one connection per process). The scheduler imports this file only.
 */

/** What a statement returned. */
export interface StatementResult {
  rows: Record<string, unknown>[];
  affectedRows?: number;
  /** The command tag's count, as node-postgres's `rowCount` (null when the tag has none). */
  rowCount: number | null;
}

/** A statement waiting on a lock another process holds (real servers only). */
export interface ParkedQuery {
  /** The process holding the lock, for the trace. */
  blockedBy: string;
  /** Whether the statement has finished (the lock was released). */
  settled(): boolean;
  /** Its result once settled (rejects with its error). */
  result(): Promise<StatementResult>;
}

/** Whether a value is a parked statement. */
export function isParked(v: unknown): v is ParkedQuery {
  return typeof v === 'object' && v !== null && typeof (v as ParkedQuery).settled === 'function' && typeof (v as ParkedQuery).result === 'function';
}

/** The engine's view of a database back-end. */
export interface SimDatabase {
  /** A short name for traces and results: `pglite`, `postgres`. */
  readonly name: string;
  /** Whether `pid` may run a statement now. */
  canRun(pid: string): boolean;
  /** Who blocks `pid`, when it cannot run. */
  blockedBy(pid: string): string | null;
  /** Run one statement on `pid`'s connection with `now()` at `nowMs`; parked if it waits on a lock. */
  query(pid: string, text: string, params: unknown[] | undefined, nowMs: number): Promise<StatementResult | ParkedQuery>;
  /** Before each choice, let parked statements finish or confirm they are still blocked. */
  settle?(): Promise<void>;
  /** `pid`'s connection is gone; returns true if that rolled back an open transaction. */
  drop(pid: string): Promise<boolean>;
  /** Whether `pid` has a transaction open. */
  inTransaction(pid: string): boolean;
  /** Empty the scenario's tables and forget every connection's state. */
  reset(extraTables?: readonly string[], extraSequences?: readonly string[]): Promise<void>;
  /** A read for checkers and inspectors, outside every process. */
  inspect(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * Whether `inspect` sees what an open transaction has written but not committed: true where
   * every process shares one connection (PGlite), false where each has its own.
   */
  readonly inspectSeesUncommitted?: boolean;
  /** Run a script (schema additions). */
  exec(sql: string): Promise<void>;
}
