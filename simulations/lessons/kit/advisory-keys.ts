/**
 * The keys of the advisory locks a run's processes asked for, as the database computes them from
 * each call's own key expression and parameters, and which of those locks were a process's own.
 *
 * A lock keeps another process out only if that process asks for the same key. The text of a call
 * cannot always tell: `pg_advisory_xact_lock($1)` with a number hashed in JavaScript from the
 * process's name takes a key nobody else takes. So each call's arguments are evaluated by the
 * database (PGlite or PostgreSQL, the same functions: hashtext, numbers, casts), and a process's
 * lock counts as its own — excluding nobody — when every transaction of that process, two or
 * more (over two messages or more, for a process that takes deliveries), asked for that one key, and every other process that took advisory locks did the same
 * with a key of its own: a key that belongs to the process, not to the work. Keys that vary with
 * the work (a row's id, an order's key) never count as a process's own, whoever took them: in this
 * tab one process often takes a row before the other gets there. A key expression the database
 * cannot evaluate alone (one that names a column of the rows it reads) says nothing either.
 *
 * A session lock let go inside a transaction, before its COMMIT, keeps nobody out of what that
 * transaction decided either: the next process gets the lock and reads before the writes are
 * committed (helpers nested the wrong way round: BEGIN, lock, …, unlock, COMMIT).
 */
import type { TraceEvent } from '../../engine/types';
import type { SimDatabase } from '../../db/port';
import { bracketed, sqlWithoutComments, transactionBoundary } from '../../db/sql-words';

/** A call that takes an advisory lock (not an unlock), as written: `try_`, `xact_` and `_shared` captured. */
export const ADVISORY_LOCK = /\bpg_(try_)?advisory_(xact_)?lock(_shared)?\s*\(/i;
const LOCK_CALLS = new RegExp(ADVISORY_LOCK.source, 'gi');
const MENTIONS = /advisory_(?:xact_)?lock/i;
const PARAM = /\$(\d+)/g;
const UNLOCK = /\bpg_advisory_unlock\s*\(/i;
const UNLOCK_ALL = /\bpg_advisory_unlock_all\s*\(/i;

/** Key evaluations already made, by expression and parameters (a run repeats a few). */
const memo = new Map<string, string | null>();
const MEMO_MAX = 4_096;

/** Which locks of a run were a process's own. */
export interface LockKeys {
  /**
   * Whether the locks `e` asked for keep nobody out: its process's own (see the module's comment),
   * or a session lock let go inside a transaction before it ended.
   */
  ownOnly(e: TraceEvent): boolean;
  /** Whether a lock `e` asked for had a NULL in its key: the functions are STRICT, so it took nothing. */
  tookNothing(e: TraceEvent): boolean;
}

export const NO_LOCK_KEYS: LockKeys = { ownOnly: () => false, tookNothing: () => false };

/** A key's row text with an empty (NULL) field: `()`, `(,)`, `(1,)`, `(,2)`. */
const NULL_FIELD = /^\((?:,|\)$)|,(?:,|\)$)/;

/** The key `args` (a call's argument list, with `$n` of `params`) evaluates to, as text; null when it cannot be evaluated alone. */
async function keyOf(db: Pick<SimDatabase, 'inspect'>, args: string, params: readonly unknown[]): Promise<string | null> {
  const used: unknown[] = [];
  const renumbered = new Map<number, number>();
  const text = args.replace(PARAM, (_m, n: string) => {
    const k = Number(n);
    if (!renumbered.has(k)) {
      used.push(params[k - 1] ?? null);
      renumbered.set(k, used.length);
    }
    return `$${renumbered.get(k)}::text`;
  });
  const memoKey = `${text}\u0000${JSON.stringify(used)}`;
  if (memo.has(memoKey)) return memo.get(memoKey)!;
  let key: string | null = null;
  const values = used.map((v) => (v === null || typeof v !== 'object' ? v : JSON.stringify(v)));
  // Parameters as text first (hashtext($1) takes text); where that fails (`id = $1` on an integer
  // column), typed as the expression needs them, as PostgreSQL infers them for the statement.
  for (const sql of [`SELECT ROW(${text})::text AS k`, `SELECT ROW(${text.replace(/(\$\d+)::text\b/g, '$1')})::text AS k`]) {
    try {
      const rows = await db.inspect(sql, values);
      key = typeof rows[0]?.k === 'string' ? rows[0].k : null;
      break;
    } catch {
      key = null;
    }
  }
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(memoKey, key);
  return key;
}

/** The lock keys of `trace`'s advisory-lock calls (see the module's comment). */
export async function advisoryLockKeys(trace: readonly TraceEvent[], db: Pick<SimDatabase, 'inspect'>): Promise<LockKeys> {
  if (!trace.some((e) => e.type === 'db' && MENTIONS.test(String((e.data as { sql?: unknown } | undefined)?.sql ?? '')))) return NO_LOCK_KEYS;
  /** Per process, the keys each of its transactions asked for (a statement outside one is a transaction of its own); null once a key could not be evaluated. */
  const units = new Map<string, (Set<string> | null)[]>();
  /** Per process, the message it was handling when each of its transactions began (by index into `units`). */
  const handled = new Map<string, (string | undefined)[]>();
  const current = new Map<string, string>();
  const inTx = new Set<string>();
  /** Per process, its session locks still held (the statements that took them), latest last. */
  const sessionHeld = new Map<string, TraceEvent[]>();
  /** Session locks let go inside a transaction, before it ended (by the statement's index in the trace). */
  const releasedEarly = new Set<number>();
  /** Statements with a lock call whose key held a NULL (by index in the trace). */
  const nullKeys = new Set<number>();
  const open = (actor: string, list: (Set<string> | null)[]) => {
    list.push(new Set());
    let messages = handled.get(actor);
    if (!messages) handled.set(actor, (messages = []));
    messages[list.length - 1] = current.get(actor);
  };
  for (const e of trace) {
    if (e.type === 'crash' || e.type === 'rollback' || e.type === 'restart') {
      inTx.delete(e.actor);
      // A crash closes the connection, and its session locks with it.
      if (e.type !== 'rollback') sessionHeld.delete(e.actor);
      continue;
    }
    if (e.type === 'receive' && e.target) {
      const message = (e.data as { messageId?: unknown } | undefined)?.messageId;
      if (typeof message === 'string') current.set(e.target, message);
      continue;
    }
    if (e.type !== 'db') continue;
    const data = e.data as { sql?: unknown; params?: unknown; waitingFor?: unknown } | undefined;
    if (data?.waitingFor !== undefined) continue;
    const sql = sqlWithoutComments(String(data?.sql ?? ''));
    const boundary = transactionBoundary(sql);
    let mine = units.get(e.actor);
    if (!mine) units.set(e.actor, (mine = []));
    if (boundary === 'begin') {
      inTx.add(e.actor);
      open(e.actor, mine);
      continue;
    }
    if (boundary === 'end') {
      inTx.delete(e.actor);
      continue;
    }
    // A session lock let go before the transaction ends lets another process in to read before
    // this one's writes are committed: it kept nobody out of what the transaction decided.
    let held = sessionHeld.get(e.actor);
    if (!held) sessionHeld.set(e.actor, (held = []));
    const released = UNLOCK_ALL.test(sql) ? held.splice(0) : UNLOCK.test(sql) ? held.splice(-1) : [];
    if (inTx.has(e.actor)) for (const lock of released) releasedEarly.add(lock.i);
    if (!MENTIONS.test(sql)) continue;
    const session = ADVISORY_LOCK.exec(sql);
    if (session && !session[2]) held.push(e);
    if (!inTx.has(e.actor)) open(e.actor, mine);
    const params = Array.isArray(data?.params) ? data.params : [];
    for (const m of sql.matchAll(LOCK_CALLS)) {
      const key = await keyOf(db, bracketed(sql, m.index + m[0].length - 1), params);
      const unit = mine[mine.length - 1];
      if (unit === undefined || unit === null) continue;
      // A key from the session's or the transaction's settings is worked out after the run, when a
      // setting made LOCAL is gone: its NULL then says nothing of what the call got.
      if (key !== null && NULL_FIELD.test(key) && !/\bcurrent_setting\s*\(/i.test(bracketed(sql, m.index + m[0].length - 1))) {
        nullKeys.add(e.i);
        continue;
      }
      if (key === null) mine[mine.length - 1] = null;
      else unit.add(key);
    }
  }
  /**
   * The one key every transaction of a process asked for, over two transactions or more (of two
   * messages or more, for a process that takes deliveries); null when its keys vary, or were not
   * known. Two transactions of one handling (a claim, then its completion) take the same key
   * because the work is the same.
   */
  const constant = new Map<string, string | null>();
  for (const [actor, list] of units) {
    const asking = list.filter((u) => u === null || u.size > 0);
    const messages = list.flatMap((u, i) => (u === null || u.size > 0 ? [handled.get(actor)?.[i]] : []));
    // A process that takes no deliveries (a relay's passes) does each transaction's work afresh.
    const oneHandling = messages.every((m) => m !== undefined) && new Set(messages).size < 2;
    if (asking.length < 2 || oneHandling || asking.some((u) => u === null || u.size !== 1)) {
      if (asking.length) constant.set(actor, null);
      continue;
    }
    const keys = new Set(asking.map((u) => [...u!][0]!));
    constant.set(actor, keys.size === 1 ? [...keys][0]! : null);
  }
  const others = (actor: string) => [...constant].filter(([a]) => a !== actor);
  return {
    tookNothing: (e) => nullKeys.has(e.i),
    ownOnly(e) {
      if (releasedEarly.has(e.i)) return true;
      const mineKey = constant.get(e.actor);
      if (!mineKey) return false;
      const rest = others(e.actor);
      return rest.length > 0 && rest.every(([, k]) => k !== null && k !== mineKey);
    },
  };
}
