/**
 * What a transaction checked still holds when it acts on it, as PostgreSQL runs two workers'
 * transactions at once.
 *
 * PGlite runs one transaction at a time, so in this tab `BEGIN; SELECT … (no row); …; COMMIT`
 * followed by the side effect looks atomic: the other worker waits for the COMMIT and then finds
 * the row. On PostgreSQL (READ COMMITTED) the two transactions overlap: a plain SELECT takes no
 * lock, both find no row, and both go on to the side effect. This checker judges a transaction by
 * what its code observably did, the way PostgreSQL would have treated it:
 *
 * - it read the rows of a plain SELECT from a table (no FOR UPDATE/SHARE, or one that locked no
 *   row) while nothing excluded the other worker: an unchecked answer;
 * - and before the side effect nothing made the decision atomic after all:
 *   - an excluding lock taken before that read (./held-locks.ts: an advisory lock every worker
 *     takes, a LOCK TABLE in a mode that conflicts with itself), or a session lock held since
 *     before BEGIN;
 *   - a write whose answer the code read (INSERT … ON CONFLICT … RETURNING, UPDATE … RETURNING: the
 *     row it got is the claim), or a plain INSERT without ON CONFLICT, which a unique key fails
 *     if the other worker got there first;
 *   - a SELECT … FOR UPDATE (or NO KEY UPDATE) that returned rows (the other worker waits on
 *     them, then reads what this one committed); FOR SHARE only once the transaction writes the
 *     rows it read (two holders both read them, and their writes deadlock: one fails), and FOR KEY
 *     SHARE never (it admits the other worker's KEY SHARE and an UPDATE of other columns);
 *   - a write to a table it locked IN SHARE MODE before the check (SHARE admits the other worker's
 *     SHARE but not its write: one of two such writers fails, deadlock detected);
 *   - the SERIALIZABLE isolation level (PostgreSQL fails one of the two, and the code does not act
 *     when its COMMIT fails: ../../engine/contention.ts asks it); or REPEATABLE READ
 *     when a later write of the transaction names the rows its check read (PostgreSQL fails that
 *     write if another transaction changed or added them since the snapshot; writes to other rows,
 *     a claim row per worker say, pass both: write skew).
 *
 * The side effect is a provider call made inside that transaction, or after it committed and
 * before the process decided again: a claim of its own, or a later transaction that read an answer
 * or locked rows (one that only pushed a lease forward by key, or wrote a note, decided nothing).
 * It counts only when another process handled the same message while the caller was handling it
 * (from the delivery to its ack, crash or next delivery): two transactions that could have run at
 * once. Where the provider honours idempotency keys, a call that carries one is left to the
 * provider (`checkHoldsUnlessKeyed`).
 */
import type { TraceEvent } from '../../engine/types';
import { executedName, preparedStatement, sqlCodeOnly, transactionBoundary } from '../../db/sql-words';
import { HeldLocks, OWN_CONNECTION } from './held-locks';
import { answerIgnored } from '../../engine/contention';
import { NO_LOCK_KEYS, type LockKeys } from './advisory-keys';
import { bare, insertedKeyValues, insertMayConflict, type UniqueKeys } from './unique-keys';
import { LOCK_TABLE_EXCLUSIVELY, shapeOf } from './statement-shape';
import { handlingsOf, meet, othersHave, RANDOM_UUID, ranByOthers, saysYes, union, valueUsers, valueUsersIn, valuesOf, within, wonByOthersAfter, type Handling, type Values } from './handlings';

/** Rows a claim took: their tables and the values that name them; whether an INSERT took them, and whether they are every worker's. */
interface Taken {
  tables: readonly string[];
  values: Values;
  inserted: boolean;
  shared: boolean;
}

/** `before` with the rows of `more` taken too. */
function alsoTaken(before: Taken | undefined, more: Taken): Taken {
  return before === undefined ? more : { tables: [...before.tables, ...more.tables], values: union(before.values, more.values), inserted: before.inserted || more.inserted, shared: before.shared || more.shared };
}

/** A process's open transaction, as far as this checker follows it. */
interface Open {
  /** Whether something made its decisions atomic (see the module's comment). */
  safe: boolean;
  /** Whether it runs at REPEATABLE READ: a later write of the rows its check read makes it safe. */
  repeatable: boolean;
  /** Whether its COMMIT failing would not have kept the process from acting: then SERIALIZABLE makes nothing safe. */
  ignoresFailure: boolean;
  /** Its first answer read while nothing excluded the other workers; null while there is none. */
  unchecked: TraceEvent | null;
  /** The tables that answer came from. */
  uncheckedTables: readonly string[];
  /** The values of that answer's statement (its parameters); null when unknown. */
  uncheckedValues: Values;
  /** Tables it has written, with the values it wrote them with: a later read of those rows sees what this transaction holds, or waited for. */
  written: Map<string, Values>;
  /** Rows it locked before any unchecked answer (a write or FOR UPDATE that returned them): their tables and values. */
  /** `decided`: some of them the code looked at (a claim), not only rows it changed unread (a lock row touched). */
  locked?: { tables: readonly string[]; values: Values; inserted: boolean; decided: boolean; shared: boolean };
  /** Tables it locked IN SHARE MODE before any unchecked answer: a later write to one waits for every other holder, or deadlocks with it. */
  shared?: string[];
  /** Whether a statement has taken its snapshot yet (anything but SET, SAVEPOINT and LOCK TABLE). */
  snapshotTaken: boolean;
  /** Whether a LOCK TABLE every worker takes came before the snapshot: at REPEATABLE READ only such a lock keeps the reads current. */
  lockedBeforeSnapshot: boolean;
  /** Rows a write of its took, the code reading what it got (a claim): once committed, the handling holds them. */
  claim?: Taken;
  /** Tables it read rows of FOR SHARE: a later write of them waits for every other holder, or deadlocks with it. */
  sharedRows?: readonly string[];
}

/** LOCK TABLE … IN SHARE MODE: the tables it names (bare, lower case). */
const LOCK_IN_SHARE_MODE = /^\s*lock\s+(?:table\s+)?(?:only\s+)?([\w."]+(?:\s*,\s*[\w."]+)*)\s+in\s+share\s+mode\b/i;

/** A process acting on an unchecked answer of its transaction: the call, and the read it rested on. */
export interface UncheckedAct {
  call: TraceEvent;
  read: TraceEvent;
  /** Whether the call came after the transaction committed (else inside it). */
  afterCommit: boolean;
}

/** The first call of a trace made on an unchecked answer of a transaction (see the module's comment); null when there is none. */
export function firstUncheckedAct(
  trace: readonly TraceEvent[],
  keyedCallsAreSafe = false,
  preparedBefore: ReadonlyMap<string, string> = new Map(),
  lockKeys: LockKeys = NO_LOCK_KEYS,
  uniqueKeys: UniqueKeys | null = null,
  /** Set when the verdict rested on a row an INSERT took in another table while `uniqueKeys` was null. */
  needs: { uniqueKeys?: boolean } = {},
): UncheckedAct | null {
  const handlings = handlingsOf(trace);
  const usedByOthers = valueUsers(trace);
  /** Whether another process ran a statement alike, values and all: a row it locks is every worker's gate. */
  const byOthers = ranByOthers(trace);
  const textByOthers = ranByOthers(trace, 'text');
  /** Whether a process other than `actor` wrote `table` somewhere in the trace. */
  const writtenByOthers = othersHave(trace, (w) => shapeOf(String((w.data as { sql?: unknown } | undefined)?.sql ?? '')).writes);
  /** Whether another process used a value on a table: a row named by such values is every worker's, not the worker's own. */
  const usedIn = valueUsersIn(trace, (sql) => { const sh = shapeOf(sql); return [...sh.reads, ...sh.writes]; });
  /** Whether another process handled `h`'s message while `h` was under way. */
  const overlapped = (h: Handling) => handlings.some((o) => o.process !== h.process && o.message === h.message && o.from < h.to && h.from < o.to);
  const wonByOthers = wonByOthersAfter(trace);
  const handling = new Map<string, Handling>();
  const open = new Map<string, Open>();
  const locks = new Map<string, HeldLocks>();
  /** A process's committed transaction that left an unchecked answer, until the process decides again. */
  const pending = new Map<string, TraceEvent>();
  /** Processes whose handling already took the operation with a statement of its own (a claim that returned its row): the tables and values it took. */
  const claimed = new Map<string, Taken>();
  /**
   * Prepared statements (PREPARE), by name: an EXECUTE is judged as the statement it runs. One map
   * for all processes: in the tab they share one session, so one process may run what another
   * prepared (on PostgreSQL each prepares its own, the same text).
   */
  const prepared = new Map<string, string>(preparedBefore);
  /** Processes whose session runs its transactions at REPEATABLE READ or SERIALIZABLE, with the level. */
  const strictSession = new Map<string, 'serializable' | 'repeatable read'>();
  /**
   * The BEGINs of transactions whose COMMIT failing (40001, as PostgreSQL fails the second of two
   * SERIALIZABLE ones) did not keep the process from acting (../../engine/contention.ts): for them
   * SERIALIZABLE decided nothing.
   */
  const failureIgnored = new Set<TraceEvent>();
  const begun = new Map<string, TraceEvent>();
  for (const e of trace.some(answerIgnored) ? trace : []) {
    if (e.type !== 'db') continue;
    const boundary = transactionBoundary(String((e.data as { sql?: unknown } | undefined)?.sql ?? ''));
    if (boundary === 'begin') begun.set(e.actor, e);
    else if (boundary === 'end' && answerIgnored(e) && begun.has(e.actor)) failureIgnored.add(begun.get(e.actor)!);
  }
  for (const e of trace) {
    if (e.type === 'crash' || e.type === 'rollback' || e.type === 'restart') {
      open.delete(e.actor);
      locks.delete(e.actor);
      pending.delete(e.actor);
      claimed.delete(e.actor);
      strictSession.delete(e.actor);
      continue;
    }
    if (e.type === 'receive' && e.target) {
      const h = handlings.find((x) => x.from === e.i);
      if (h) handling.set(e.target, h);
      else handling.delete(e.target);
      pending.delete(e.target);
      claimed.delete(e.target);
      continue;
    }
    if (e.type === 'call') {
      const h = handling.get(e.actor);
      if (!h || !overlapped(h)) continue;
      if (keyedCallsAreSafe && (e.data as { options?: { idempotencyKey?: unknown } } | undefined)?.options?.idempotencyKey) continue;
      const tx = open.get(e.actor);
      if (tx && !tx.safe && tx.unchecked) return { call: e, read: tx.unchecked, afterCommit: false };
      const read = pending.get(e.actor);
      if (!tx && read) return { call: e, read, afterCommit: true };
      continue;
    }
    if (e.type !== 'db' && e.type !== 'db-error') continue;
    const data = e.data as { sql?: unknown; params?: unknown; rows?: unknown; rowsRead?: unknown; affected?: unknown; waitingFor?: unknown } | undefined;
    // A statement parked on a lock is recorded again once it runs.
    if (data?.waitingFor !== undefined) continue;
    const text = String(data?.sql ?? '');
    const preparing = preparedStatement(text);
    if (preparing && e.type === 'db') {
      prepared.set(preparing.name, preparing.text);
      continue;
    }
    const executing = executedName(text);
    const sql = executing !== null ? (prepared.get(executing) ?? text) : text;
    const values = executing !== null ? null : valuesOf(data);
    /**
     * Whether this process's handling already took the operation before its transaction (a claim
     * that returned its row), so that what it reads now decides nothing another worker could slip
     * past. A row of its own in the same table under other values (a log line, a heartbeat) is no
     * claim of what it now reads there.
     */
    const alreadyTaken = (tables: readonly string[]) => {
      const c = claimed.get(e.actor);
      return c !== undefined && (!tables.some((t) => c.tables.includes(t)) ? (c.shared || within(c.values, values)) && relyOn(c) : meet(c.values, values));
    };
    /**
     * Whether the row a statement names by `taken` is this attempt's own, which no other worker
     * would ever write or lock, so that it keeps none of them out: a row keyed on the connection's or
     * the transaction's identity alone (pg_backend_pid(), txid_current()), on the worker's own name,
     * or on a fresh UUID of its own (one neither in the delivery nor used by another process).
     */
    /** For an INSERT of one row, the values each unique key of its table takes (`insertedKeyValues`), worked out once. */
    let keysInserted: ReturnType<typeof insertedKeyValues> | undefined;
    const insertKeys = () => (keysInserted ??= executing !== null ? null : insertedKeyValues(sql, uniqueKeys, Array.isArray(data?.params) ? data.params : []));
    const ownRow = (taken: Values) => {
      if (taken === null) return values === null && OWN_CONNECTION.test(sql);
      const delivered = handling.get(e.actor)?.delivered;
      const mine = (v: string) => v.includes(e.actor) || (RANDOM_UUID.test(v) && !delivered?.has(v) && !usedByOthers(v, e.actor));
      // An INSERT's row is named by its unique keys: its own when each key holds a value of its own
      // (the worker's name beside the order), or when no key is filled at all (a sequence's id).
      const keys = !shape.inserts || executing !== null || uniqueKeys === null ? null : insertMayConflict(sql, uniqueKeys) ? insertKeys() : [];
      if (keys !== null) return keys.every((key) => [...key].some(mine));
      return taken.size > 0 && [...taken].every(mine);
    };
    /**
     * Whether the row named by `rows` in `tables` is every worker's, not one of the worker's own:
     * each of its values was used on one of those tables by another process too (the order's key,
     * not the worker's slot or a random attempt number).
     */
    const everyWorkers = (tables: readonly string[], rows: Values) =>
      rows !== null && rows.size > 0 && [...rows].every((v) => !v.includes(e.actor) && tables.some((t) => usedIn(v, t, e.actor)));
    /** The rows this statement takes, named by `rows`: whether they are every worker's, or (no other process ran it) may be. */
    const takenHere = (rows: Values): Taken => {
      const tables = [...shape.writes, ...shape.reads];
      return { tables, values: rows, inserted: shape.inserts, shared: everyWorkers(tables, rows) || !textByOthers(e) };
    };
    /**
     * A row of another table taken before counts as the operation taken; when it was an INSERT's
     * and the tables' unique keys were not read, say so, so that the caller judges again with them
     * (is the row the attempt's own?).
     */
    const relyOn = (taken: { inserted: boolean }) => {
      if (taken.inserted && uniqueKeys === null) needs.uniqueKeys = true;
      return true;
    };
    /**
     * The values that name the row a plain INSERT adds: those its unique keys take (a row under a
     * fresh random id is that attempt's alone, whatever else it notes), else the statement's own.
     */
    const rowValues = (): Values => {
      const keys = shape.kind === 'plain-insert' ? insertKeys() : null;
      return keys === null ? values : new Set(keys.flatMap((k) => [...k]));
    };
    let held = locks.get(e.actor);
    if (!held) locks.set(e.actor, (held = new HeldLocks(e.actor, LOCK_TABLE_EXCLUSIVELY, lockKeys, byOthers)));
    const boundary = transactionBoundary(sql);
    const shaped = shapeOf(sql);
    // A SKIP LOCKED read whose answer the code ignored (../../engine/contention.ts) decided nothing
    // by its locks; a plain INSERT whose 23505 it ignored (caught under a SAVEPOINT) took nothing.
    const shape = answerIgnored(e) && shaped.kind === 'locking-read' ? { ...shaped, kind: 'read' as const } : answerIgnored(e) && shaped.kind === 'plain-insert' ? { ...shaped, kind: 'write' as const } : shaped;
    // A function's write answers with the value it returned (a row comes back either way); a DO
    // block's, by running without raising (./statement-shape.ts, `callsWrite`).
    const returned =
      shaped.callsWrite === 'no-error' ? (e.type === 'db' ? 1 : 0)
      : !Array.isArray(data?.rows) ? 0
      // Inside a transaction the code's reading of it is the decision (a function may answer
      // "duplicate" as true); outside one, where reads are not watched, a null, false or 0 took nothing.
      : shaped.callsWrite === 'value' && !open.has(e.actor) ? (data.rows as Record<string, unknown>[]).filter(saysYes).length
      : data.rows.length;
    /** The rows its answer counts: those returned, or for a write without RETURNING those it changed (its rowCount). */
    const counted = returned > 0 || shaped.kind !== 'write' || typeof data?.affected !== 'number' ? returned : data.affected;
    /** Whether the code looked at its answer (its rows, or its rowCount). */
    const rowsRead = data?.rowsRead === true || shaped.callsWrite === 'no-error';
    /** Whether it changed or returned rows (unknown counts as changed): a write that touched nothing holds nothing. */
    const touched = returned > 0 || typeof data?.affected !== 'number' || data.affected > 0;
    if (boundary === 'begin') {
      held.inTransaction = false;
      const level = shape.level ?? strictSession.get(e.actor) ?? null;
      const ignoresFailure = failureIgnored.has(e);
      const safe = held.session > 0 || (level === 'serializable' && !ignoresFailure);
      open.set(e.actor, { safe, repeatable: level === 'repeatable read', ignoresFailure, unchecked: null, uncheckedTables: [], uncheckedValues: null, written: new Map(), snapshotTaken: false, lockedBeforeSnapshot: false });
      continue;
    }
    const tx = open.get(e.actor);
    if (boundary === 'end') {
      open.delete(e.actor);
      held.inTransaction = false;
      // A claim committed is the handling's, as one made outside a transaction: its later
      // transactions' reads of it (a fencing token checked) decide nothing another worker could slip past.
      if (tx?.claim && shape.kind !== 'rollback' && e.type === 'db') {
        const before = claimed.get(e.actor);
        claimed.set(e.actor, alsoTaken(before, tx.claim));
      }
      if (tx && !tx.safe && tx.unchecked && shape.kind !== 'rollback' && e.type === 'db') pending.set(e.actor, tx.unchecked);
      // A transaction that read no answer unchecked and took nothing (a lease pushed forward by
      // key alone, a note) decided nothing: an earlier transaction's unchecked answer still stands.
      else if (!tx || tx.safe || tx.locked?.decided) pending.delete(e.actor);
      continue;
    }
    const heldBefore = held.any;
    held.see(e);
    // At REPEATABLE READ the transaction's first statement takes the snapshot every read of it
    // sees, before any lock it waits for: only a LOCK TABLE ahead of it (which takes no snapshot)
    // keeps what the reads see current.
    if (tx && !tx.snapshotTaken) {
      const code = sqlCodeOnly(sql);
      if (/^\s*lock\b/i.test(code)) tx.lockedBeforeSnapshot = held.any;
      else if (!/^\s*(?:set|savepoint|release)\b/i.test(code)) tx.snapshotTaken = true;
    }
    const lockedBefore = heldBefore && !(tx?.repeatable && !tx.lockedBeforeSnapshot);
    if (e.type === 'db-error') continue;
    if (!tx) {
      // Outside a transaction: a statement that takes the operation (or may: a plain INSERT) is a decision of its own.
      if (shape.isolation === 'session' && shape.level) strictSession.set(e.actor, shape.level);
      if (shape.resetsSession) strictSession.delete(e.actor);
      // A read made while the process holds a session lock every worker takes is a decision of
      // its own: whoever held the lock before has committed what it did, and this read sees it.
      if (held.session > 0 && (shape.kind === 'read' || shape.kind === 'locking-read')) pending.delete(e.actor);
      // A lock taken outside a transaction (SELECT … FOR UPDATE) ends with its statement: it takes nothing.
      // One that another worker's handling ran alike, won too and passed the same way before this one acted took nothing.
      if (!ownRow(rowValues()) && ((shape.kind === 'plain-insert' && insertMayConflict(sql, uniqueKeys)) || (shape.kind === 'write' && (returned > 0 || (rowsRead && counted > 0)) && !shape.alwaysReturns)) && !wonByOthers(e, handling.get(e.actor)?.to ?? e.i)) {
        pending.delete(e.actor);
        const before = claimed.get(e.actor);
        claimed.set(e.actor, alsoTaken(before, takenHere(rowValues())));
      }
      continue;
    }
    if (touched) for (const t of shape.writes) tx.written.set(t, union(tx.written.get(t), values));
    // SET SESSION CHARACTERISTICS or default_transaction_isolation inside a transaction: for the session's next ones.
    if (shape.isolation === 'session' && shape.level) strictSession.set(e.actor, shape.level);
    if (shape.kind === 'write' && rowsRead && counted > 0 && !(returned > 0 && shape.alwaysReturns) && !ownRow(values)) {
      // Named by what it was called with and by what it returned (a fencing token, the row's id).
      const named = union(values, valuesOf({ params: Array.isArray(data?.rows) ? data.rows.flatMap((r) => Object.values(r as object)) : [] }));
      tx.claim = alsoTaken(tx.claim, { ...takenHere(rowValues()), values: named });
    }
    if (tx.safe) continue;
    const openTx = tx;
    /** This statement's rows stay locked to the transaction: a later read of the same rows (or of other tables) rests on them. */
    const lockRows = (tables: readonly string[], rows: Values = values, decided = true) => {
      // A row keyed on the worker's own name alone (its heartbeat, its counter) is no other worker's.
      if (ownRow(rows)) return;
      openTx.locked = { tables: [...(openTx.locked?.tables ?? []), ...tables], values: union(openTx.locked?.values, rows), inserted: (openTx.locked?.inserted ?? false) || shape.inserts, decided: (openTx.locked?.decided ?? false) || decided, shared: (openTx.locked?.shared ?? false) || byOthers(e) || everyWorkers(tables, rows) || !textByOthers(e) };
    };
    /**
     * Whether rows the transaction locked before cover a read of `tables`: the operation's row
     * itself, a lock row of another table, or a gate row of the same table (every worker locks it
     * first, so the reads after it take turns). Rows of the worker's own never got here (`lockRows`).
     */
    const lockedBy = (tables: readonly string[]) => {
      const l = openTx.locked;
      // At REPEATABLE READ a row lock waited for leaves the snapshot as it was: the reads after it see no more.
      if (openTx.repeatable) return false;
      if (l === undefined) return false;
      return !tables.some((t) => l.tables.includes(t)) ? (l.shared || within(l.values, values)) && relyOn(l) : l.shared || meet(l.values, values);
    };
    /** Whether some unique key this INSERT fills takes only values the check read; `unknown` when that cannot be read. */
    const keyFromCheck = (checked: Values, unknown = true) => {
      const keys = checked === null ? null : insertKeys();
      return keys === null ? unknown : keys.some((key) => [...key].every((v) => checked!.has(v)));
    };
    /**
     * Whether some unique key this INSERT fills takes only values every handling of the message
     * would put there: the delivery's, the check's, or one another process passed too (a key
     * hashed from the order), not the worker's own.
     */
    const keyFromDelivery = (checked: Values) => {
      if (executing !== null || uniqueKeys === null) return false;
      // A literal in the key is every worker's alike only if another process ran this very text
      // (not one with a token of its own spliced in).
      const literals = textByOthers(e) ? 'skip' : sql.includes(e.actor) ? 'unknown' : 'skip-words';
      const keys = insertedKeyValues(sql, uniqueKeys, Array.isArray(data?.params) ? data.params : [], literals);
      const delivered = handling.get(e.actor)?.delivered;
      // No other process wrote this table: nothing shows the key to be this worker's own.
      const unseen = !shape.writes.some((t) => writtenByOthers(t, e.actor));
      return keys !== null && keys.some((key) => [...key].every((v) => !v.includes(e.actor) && (unseen || delivered?.has(v) || checked?.has(v) || usedByOthers(v, e.actor))));
    };
    const shareMode = /\bshare\s+mode\b/i.test(sql) ? LOCK_IN_SHARE_MODE.exec(sqlCodeOnly(sql)) : null;
    if (shareMode && tx.unchecked === null) tx.shared = [...(tx.shared ?? []), ...shareMode[1]!.split(',').map((t) => bare(t))];
    const answered = shape.kind === 'read' || shape.kind === 'locking-read' || shape.kind === 'write';
    if (shape.isolation === 'session') {
      // A default for the session's later transactions leaves this one at the level it began with.
    } else if (shape.level === 'serializable') tx.safe = !tx.ignoresFailure;
    else if (shape.level === 'repeatable read') tx.repeatable = true;
    else if (tx.repeatable && shape.kind === 'write' && tx.unchecked !== null && shape.writes.some((t) => tx.uncheckedTables.includes(t)) && meet(values, tx.uncheckedValues) && (!shape.inserts || keyFromCheck(tx.uncheckedValues))) {
      // REPEATABLE READ: this write of the rows the check read fails if another transaction changed or added them since the snapshot.
      tx.safe = true;
    }
    else if (tx.unchecked !== null && shape.writes.length > 0 && (shape.writes.some((t) => tx.shared?.includes(t)) || (touched && sharedRowsWritten(tx.sharedRows, shape.writes)))) {
      // SHARE admits other SHARE holders but not their writes: this write waits until every other
      // worker that locked the table before its check has ended, and when that one writes too,
      // PostgreSQL fails one of the two (deadlock detected). The check stands until the COMMIT.
      tx.safe = true;
    } else if (lockedBefore && (tx.unchecked === null || (rowsRead && answered))) {
      // A lock every worker takes, held before this statement: reads from here on are checked, a re-read included.
      tx.safe = true;
    } else if (shape.kind === 'plain-insert' && insertMayConflict(sql, uniqueKeys)) {
      // The unique key fails the second worker's INSERT, when both put the same key: one built
      // from values the check read, not from the attempt's own id. In the table the check read or
      // in another (a claims table beside the results): either way only one of them gets past it.
      const sameTable = shape.writes.some((t) => tx.uncheckedTables.includes(t));
      if (tx.unchecked !== null && meet(values, tx.uncheckedValues) && keyFromCheck(tx.uncheckedValues, sameTable)) tx.safe = true;
      // Or a key every handling of the message fills alike: values of the delivery, literals and
      // values the check read (a claims table keyed on the order id, whatever the check read it by).
      else if (tx.unchecked !== null && keyFromDelivery(tx.uncheckedValues)) tx.safe = true;
      // Before any check, the inserted row is taken: another worker's INSERT of it waits, then fails.
      else if (tx.unchecked === null) lockRows(shape.writes, rowValues());
    } else if (shape.kind === 'write' || shape.kind === 'locking-read') {
      if (returned > 0 && shape.alwaysReturns) {
        // It locked the row it returned, as FOR UPDATE does: a decision on it from here on is
        // checked; one made on an earlier read is not, since the row comes back either way.
        if (tx.unchecked === null) lockRows([...shape.reads, ...shape.writes]);
      } else if (counted > 0 && (shape.kind === 'locking-read' || rowsRead)) {
        if (tx.unchecked === null) {
          lockRows([...shape.reads, ...shape.writes]);
        }
        // A re-read under the lock decides again, when the code looks at what it returned.
        else if (rowsRead) tx.safe = true;
      } else if (tx.unchecked === null && shape.kind === 'write' && (returned > 0 || (typeof data?.affected === 'number' && data.affected > 0))) {
        // Rows it changed stay locked to it until COMMIT, whether or not the code looked at the
        // count: an UPDATE of a lock row that is always there makes the other worker wait for the
        // COMMIT before its own check. A lock that decides nothing of its own, though.
        lockRows([...shape.reads, ...shape.writes], values, false);
      } else if (rowsRead && tx.unchecked === null && !alreadyTaken([...shape.reads, ...shape.writes]) && !lockedBy([...shape.reads, ...shape.writes])) {
        // An UPDATE … RETURNING or FOR UPDATE that found nothing locked nothing: acting on "nobody has it" is unchecked.
        tx.unchecked = e;
        tx.uncheckedTables = [...shape.reads, ...shape.writes];
        tx.uncheckedValues = values;
      }
    } else if (shape.kind === 'read' && rowsRead && tx.unchecked === null && !shape.reads.some((t) => tx.written.has(t) && meet(tx.written.get(t)!, values)) && !alreadyTaken(shape.reads) && !lockedBy(shape.reads)) {
      tx.unchecked = e;
      tx.uncheckedTables = shape.reads;
      tx.uncheckedValues = values;
      if (shape.sharesRows && counted > 0) tx.sharedRows = shape.reads;
    }
  }
  return null;
}

/**
 * Whether a write of `tables` (by key, by a surrogate id, through a function) writes a table the
 * transaction read FOR SHARE: the rows it read there are the ones it goes on to change.
 */
function sharedRowsWritten(shared: Open['sharedRows'], tables: readonly string[]): boolean {
  return shared !== undefined && tables.some((t) => shared.includes(t));
}
