/**
 * The locks that keep other processes out, as a process's statements take and release them: what
 * PGlite's one session cannot show by itself, since it runs one transaction at a time. Read by the
 * relay's lock rule (./relay-locks.ts) and by the check on what a transaction decided
 * (./overlap.ts).
 *
 * An advisory lock excludes others when it is exclusive (shared locks admit each other), keyed on
 * something the other processes would use too (not the process's own name, its connection's
 * pg_backend_pid() or its transaction's id, nor a key no other process of the run asked for:
 * ./advisory-keys.ts), and, for a `pg_try_advisory…` lock, when its answer
 * decides something: the code read it, or the call filters rows in the statement's WHERE, and
 * inside a transaction the code did something else when the answer was the contended one
 * (../../engine/contention.ts).
 */
import type { TraceEvent } from '../../engine/types';
import { answerIgnored } from '../../engine/contention';
import { bracketed, sqlAsRun, sqlCodeOnly } from '../../db/sql-words';
import { ADVISORY_LOCK, NO_LOCK_KEYS, type LockKeys } from './advisory-keys';
import { BODIES } from './learner-functions';

const TRY_IN_WHERE = /\bwhere\b[\s\S]*\bpg_try_advisory_/i;
/** `SELECT pg_try_advisory…(…) [AS name]`: the answer is the call's boolean itself. */
const BARE_TRY = /^\s*select\s+(?:pg_catalog\s*\.\s*)?pg_try_advisory_(?:xact_)?lock(?:_shared)?\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\s*(?:(?:as\s+)?[\w"]+\s*)?;?\s*$/i;
/** What differs per connection or per transaction: a lock keyed on it is every process's own. */
export const OWN_CONNECTION = /\b(?:pg_backend_pid|inet_client_port|txid_current|pg_current_xact_id)\s*\(/i;
const UNLOCK = /\bpg_advisory_unlock\s*\(/i;
const UNLOCK_ALL = /\bpg_advisory_unlock_all\s*\(/i;

/** `sql` without the comments before its first word (`-- why\nLOCK TABLE …`). */
function withoutLeadingComments(sql: string): string {
  return sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/, '');
}

/** An advisory lock `e` took that keeps other processes out (see the module's comment); null when it took none. */
function excludingLock(e: TraceEvent, actor: string, keys: LockKeys): RegExpExecArray | null {
  const data = e.data as { sql?: unknown; params?: unknown; answerRead?: unknown } | undefined;
  // Answered false, as a lock another process holds answers, the code acted all the same (../../engine/contention.ts).
  if (answerIgnored(e)) return null;
  const sql = sqlAsRun(String(data?.sql ?? ''));
  const lock = ADVISORY_LOCK.exec(sql);
  if (!lock || lock[3]) return null;
  // Keyed on the worker's name: in the call's arguments, or a parameter they use (not one the
  // statement passes elsewhere, such as an application_name set beside the lock).
  const args = bracketed(sql, lock.index + lock[0].length - 1);
  const params = Array.isArray(data?.params) ? data.params : [];
  if (args.includes(actor) || [...args.matchAll(/\$(\d+)/g)].some((m) => JSON.stringify(params[Number(m[1]) - 1] ?? null).includes(actor))) return null;
  if (OWN_CONNECTION.test(args)) return null;
  if (keys.ownOnly(e) || keys.tookNothing(e)) return null;
  const rows = Array.isArray((data as { rows?: unknown } | undefined)?.rows) ? ((data as { rows: Record<string, unknown>[] }).rows) : null;
  // Called in the select list of a query FROM a table that returned no row: it was called for no
  // row, and took nothing (`SELECT pg_advisory_xact_lock(hashtext(op_key)) FROM operations WHERE …`
  // before the row exists).
  if (rows?.length === 0 && /^\s*select\b/i.test(sql) && !/\bfrom\b/i.test(sql.slice(0, lock.index)) && /\bfrom\b/i.test(sql.slice(lock.index))) return null;
  if (!lock[1]) return lock;
  // A try-lock holds something only when it got it: a true in its answer, or rows its WHERE let through.
  if (TRY_IN_WHERE.test(sql)) return rows === null || rows.length > 0 ? lock : null;
  // The bare call's answer is the lock's own: false holds nothing. A shaped answer (NOT …, ::int,
  // CASE) is judged by the code's reading it, and by the probe (../../engine/contention.ts).
  if (BARE_TRY.test(sql) && rows !== null && !rows.some((r) => Object.values(r).some((v) => v === true))) return null;
  return data?.answerRead === true ? lock : null;
}

/**
 * Whether `e` (its text `sql`) locked rows it waited for: FOR UPDATE or FOR NO KEY UPDATE, not SKIP
 * LOCKED, a NOWAIT obeyed (../../engine/contention.ts), and at least one row returned; or an UPDATE
 * that changed at least one row.
 */
function locksMutexRow(e: TraceEvent, sql: string): boolean {
  if (e.type !== 'db' || answerIgnored(e) || /\bskip\s+locked\b/i.test(sql)) return false;
  // Inside a function of the learner's (its body beside the call): a NOWAIT or an exception
  // handler may have given the lock up, and no probe can tell.
  const bodies = sql.indexOf(BODIES);
  if (bodies >= 0 && /\bnowait\b|\bexception\s+when\b/i.test(sql.slice(bodies))) return false;
  const data = e.data as { rows?: unknown; affected?: unknown } | undefined;
  // An UPDATE that changed a row holds it until COMMIT as FOR UPDATE does (`last_pass_at = now()`).
  if (/^\s*update\b/i.test(sqlCodeOnly(sql))) return typeof data?.affected === 'number' && data.affected > 0;
  if (!/\bfor\s+(?:no\s+key\s+)?update\b/i.test(sql)) return false;
  return Array.isArray(data?.rows) && data.rows.length > 0;
}

/**
 * The excluding locks a process holds: session-level ones (counted: each unlock lets go of one) and
 * whether its transaction holds any. `tableLock` matches a LOCK TABLE that keeps the others out.
 */
export class HeldLocks {
  session = 0;
  inTransaction = false;

  constructor(
    private readonly actor: string,
    private readonly tableLock: RegExp,
    /** The run's lock keys (./advisory-keys.ts): a lock on a key only this process asked for keeps nobody out. */
    private readonly keys: LockKeys = NO_LOCK_KEYS,
    /**
     * Whether a row `e` locked is a mutex every worker locks (another process ran the same
     * statement with the same parameters); the caller may also rule out rows it judges itself.
     * Such a row, locked FOR UPDATE and waited for, keeps the others out until COMMIT.
     */
    private readonly rowMutex: (e: TraceEvent, sql: string) => boolean = () => false,
  ) {}

  /** Take in one statement of the process. */
  see(e: TraceEvent): void {
    const sql = sqlAsRun(String((e.data as { sql?: unknown } | undefined)?.sql ?? ''));
    if (UNLOCK_ALL.test(sql)) this.session = 0;
    else if (UNLOCK.test(sql)) this.session = Math.max(0, this.session - 1);
    else if (this.tableLock.test(withoutLeadingComments(sql))) this.inTransaction = true;
    else {
      const lock = excludingLock(e, this.actor, this.keys);
      if (lock && lock[2]) this.inTransaction = true;
      else if (lock) this.session++;
      else if (locksMutexRow(e, sql) && this.rowMutex(e, sql)) this.inTransaction = true;
    }
  }

  get any(): boolean {
    return this.session > 0 || this.inTransaction;
  }
}
