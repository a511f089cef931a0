/**
 * Two relays sharing one outbox: whether a relay's transaction kept the other relay off the rows
 * it published, as PostgreSQL runs two transactions at once (PGlite runs them one at a time).
 */
import { ranByOthers } from './handlings';
import type { TraceEvent } from '../../engine/types';
import { memoByText } from '../../engine/text-memo';
import { HeldLocks } from './held-locks';
import { withLearnerFunctions } from './learner-functions';
import { answerIgnored, ignoredAnswerSentence } from '../../engine/contention';
import { advisoryLockKeys, type LockKeys } from './advisory-keys';
import { bracketed, executedName, rollsBackToSavepoint, sqlCodeOnly, sqlAsRun, withQueries } from '../../db/sql-words';
import { preparedStatements } from './prepared';
import { firstInTransaction, type Invariant } from './scenario';

/**
 * What keeps two relays' transactions apart on PostgreSQL, judged on the read the publish follows
 * (the transaction's last statement before it that returned outbox rows: a SELECT from the outbox,
 * or an UPDATE or DELETE of it with RETURNING):
 * - that read locks the rows it returns: FOR UPDATE or FOR NO KEY UPDATE (SKIP LOCKED or not, in a
 *   sub-select too); a DELETE … RETURNING (a row another relay deleted meanwhile is gone when this
 *   one gets it); an UPDATE … RETURNING whose own WHERE re-checks `published_at IS NULL`
 *   (PostgreSQL re-checks that WHERE on the row once the other relay commits, and skips it; a
 *   re-check inside a sub-select is not re-run); or
 * - an advisory lock was taken in the transaction before that read (the relays take turns). A lock
 *   taken after the read comes too late: the second relay waits for it and then publishes the rows
 *   it read before. Reading again under the lock is enough: PostgreSQL makes a transaction's commit
 *   visible before it releases its locks, so a relay that gets the lock next and reads then sees the
 *   first relay's marks (candidates read unlocked, then each one try-locked and re-read before it is
 *   published, is a sound relay). A session-level lock taken before BEGIN and not yet let go
 *   counts as well, and so does LOCK TABLE outbox in a mode that conflicts with itself. A
 *   `pg_try_advisory…` lock counts when its answer decides something: the code read it, or the
 *   call filters rows in the statement's WHERE. A lock keyed on the relay's own name (its process
 *   id in the key, its connection's pg_backend_pid(), its transaction's id), or a shared one (shared locks admit each other), excludes nobody, and does not
 *   count; or
 * - every row that read returned was locked earlier in the same transaction (ids locked FOR UPDATE
 *   SKIP LOCKED, then their payloads fetched by id): they stay this transaction's until it ends.
 * A row-locking statement other than that read (a FOR UPDATE of one row as a gate, then the batch
 * read unlocked; an UPDATE … WHERE published_at IS NULL whose answer is not what is published)
 * leaves the other relay free to read and publish the same rows.
 */
const FOR_UPDATE = /\bfor\s+(no\s+key\s+)?update\b/i;
/** The outbox table, bare or schema-qualified (`public.outbox`, `"public"."outbox"`). */
const OUTBOX = String.raw`(?:"?public"?\s*\.\s*)?"?outbox"?(?![\w"])`;
/** The outbox in a FROM, a JOIN or a FROM list after a comma (`FROM orders, outbox o`): not a column (`outbox.id`). */
const READS_OUTBOX = new RegExp(String.raw`(?:\b(?:from|join)\s+|,\s*)(?:only\s+)?${OUTBOX}(?!\s*\.)`, 'i');
const WRITE_OF_OUTBOX = String.raw`(update\s+(?:only\s+)?${OUTBOX}|delete\s+from\s+(?:only\s+)?${OUTBOX})`;
const WRITES_OUTBOX = new RegExp(String.raw`^\s*${WRITE_OF_OUTBOX}`, 'i');
/** A statement opening with WITH whose common table expression updates or deletes outbox rows (`WITH m AS (UPDATE outbox … RETURNING …) SELECT … FROM m`). */
const CTE_WRITES_OUTBOX = new RegExp(String.raw`^\s*with\b[\s\S]*?\bas\s*(?:(?:not\s+)?materialized\s*)?\(\s*${WRITE_OF_OUTBOX}`, 'i');
const RETURNING = /\breturning\b/i;
/**
 * LOCK TABLE on the outbox in a mode that conflicts with itself (SHARE UPDATE EXCLUSIVE, SHARE ROW
 * EXCLUSIVE, EXCLUSIVE, ACCESS EXCLUSIVE, the default): two relays take turns. ROW SHARE, ROW
 * EXCLUSIVE and SHARE admit each other, and keep nobody out.
 */
const LOCK_TABLE_OUTBOX_EXCLUSIVELY = new RegExp(
  String.raw`^\s*lock\s+(?:table\s+)?(?:only\s+)?(?:[\w."]+\s*,\s*)*${OUTBOX}(?:\s*,\s*[\w."]+)*\s*(?:in\s+(?:share\s+update\s+exclusive|share\s+row\s+exclusive|exclusive|access\s+exclusive)\s+mode\b|(?:nowait\s*)?;?\s*$)`,
  'i',
);

/** `sql` with every parenthesised group that holds a SELECT emptied: what is left is the statement's own clauses. */
function withoutSubqueries(sql: string): string {
  let out = sql;
  for (;;) {
    // Innermost groups first; one without a SELECT is kept, its brackets set aside for the next round.
    const next = out.replace(/\(([^()]*)\)/g, (_group, inner: string) => (/\bselect\b/i.test(inner) ? '\u0001\u0002' : `\u0001${inner}\u0002`));
    if (next === out) break;
    out = next;
  }
  return out.replace(/\u0001/g, '(').replace(/\u0002/g, ')');
}

/**
 * The UPDATE or DELETE of outbox rows `sql` makes: the statement itself, or the body of the
 * common table expression that makes it (the rows the statement returns come from its RETURNING);
 * null when it writes no outbox row.
 */
function outboxWrite(sql: string): string | null {
  if (WRITES_OUTBOX.test(sql)) return sql;
  const cte = CTE_WRITES_OUTBOX.exec(sql);
  if (!cte) return null;
  // The match ends with the write's first words, which hold no bracket: the last one opens the body.
  return bracketed(sql, cte.index + cte[0].lastIndexOf('('));
}


/** Whether `sql` returns outbox rows that a publish may follow. */
function readsOutbox(sql: string): boolean {
  const write = outboxWrite(sql);
  return write !== null ? RETURNING.test(write) : READS_OUTBOX.test(sql);
}

/** `FOR [NO KEY] UPDATE OF a, b`: the tables (or aliases) it names, whose rows alone it locks. */
const FOR_UPDATE_OF = /\bfor\s+(?:no\s+key\s+)?update\s+of\s+((?:"?\w+"?\s*(?:\.\s*"?\w+"?\s*)?,\s*)*"?\w+"?(?:\s*\.\s*"?\w+"?)?)/gi;
/** The outbox in a FROM, a JOIN or a FROM list, with the alias it is given if any. */
/** The words that may follow a table in FROM where an alias would stand: a word among them is no alias. */
const CLAUSE_WORDS = 'where|join|inner|left|right|full|cross|natural|on|using|order|group|limit|offset|for|window|union|returning';
const IS_CLAUSE_WORD = new RegExp(`^(?:${CLAUSE_WORDS})$`, 'i');
const OUTBOX_AS = new RegExp(String.raw`(?:\b(?:from|join)\s+|,\s*)(?:only\s+)?${OUTBOX}(?!\s*\.)(?:\s+(?:as\s+)?(?!(?:${CLAUSE_WORDS})\b)"?(\w+)"?)?`, 'gi');

/**
 * Whether the row locks `sql` takes cover the outbox rows it reads: FOR UPDATE with no OF list, or
 * an OF list naming the outbox, its alias, or a subquery (a view, read as its query) that reads the
 * outbox: PostgreSQL locks the rows of the tables underneath a view or subquery named there.
 */
export function rowLockCoversOutbox(sql: string): boolean {
  const lists = [...sql.matchAll(FOR_UPDATE_OF)].map((m) => m[1]!.split(',').map((name) => name.replace(/"/g, '').trim().split(/\s*\.\s*/).pop()!.toLowerCase()));
  if (lists.length === 0) return true;
  const names = new Set(['outbox']);
  for (const m of sql.matchAll(OUTBOX_AS)) if (m[1]) names.add(m[1].toLowerCase());
  for (const name of subqueriesReadingOutbox(sql)) names.add(name);
  return lists.some((list) => list.some((name) => names.has(name)));
}

/** The aliases of the parenthesised subqueries of `sql` that read the outbox (`(SELECT … FROM outbox …) AS pending`). */
function subqueriesReadingOutbox(sql: string): string[] {
  const code = sqlCodeOnly(sql);
  const out: string[] = [];
  for (const m of code.matchAll(/\)\s*(?:as\s+)?(q|[a-z_][\w$]*)\b/gi)) {
    let depth = 0;
    let open = -1;
    for (let i = m.index!; i >= 0; i--) {
      if (code[i] === ')') depth++;
      else if (code[i] === '(' && --depth === 0) {
        open = i;
        break;
      }
    }
    if (open === -1 || !/^\s*select\b/i.test(code.slice(open + 1)) || !new RegExp(String.raw`\b(?:from|join)\s+(?:only\s+)?${OUTBOX}`, 'i').test(code.slice(open + 1, m.index!))) continue;
    // A quoted alias is blanked to `q…` in the code-only text: read it from the statement.
    const alias = m[1] === 'q' && sql[m.index! + m[0].length - 1] === '"' ? (/^"([^"]+)"/.exec(sql.slice(m.index! + m[0].length - 1))?.[1] ?? '') : m[1]!;
    if (alias && !IS_CLAUSE_WORD.test(alias)) out.push(alias.toLowerCase());
  }
  return out;
}

/** An equality between two qualified columns (`l.id = o.id`): a sub-select tied to the rows around it. */
const CORRELATED = /(?<![\w$."])[a-z_][\w$]*\s*\.\s*"?[\w$]+"?\s*=\s*[a-z_][\w$]*\s*\.\s*"?[\w$]+"?/i;

/**
 * Whether every FOR UPDATE of `sql` only gates the statement: it sits inside an EXISTS (…), or in a
 * query of its WITH that is read only inside EXISTS (…). Such a lock decides whether the statement
 * returns rows at all, not which: the rows it returns come from a read that locks nothing, and
 * another relay that locked other rows returns the same ones.
 */
export function lockOnlyGates(sql: string): boolean {
  const code = sqlCodeOnly(sql);
  const locks = [...code.matchAll(/\bfor\s+(?:no\s+key\s+)?update\b/gi)].map((m) => m.index!);
  if (locks.length === 0) return false;
  /** The brackets open at `at`, outermost first. */
  const enclosing = (at: number) => {
    const open: number[] = [];
    for (let i = 0; i < at; i++) {
      if (code[i] === '(') open.push(i);
      else if (code[i] === ')') open.pop();
    }
    return open;
  };
  // An EXISTS that ties its rows to the outer ones (`WHERE l.id = o.id`) is a semi-join on them, not a gate.
  const insideExists = (at: number) => enclosing(at).some((open) => /\bexists\s*$/i.test(code.slice(0, open)) && !CORRELATED.test(bracketed(code, open)));
  const ctes = withQueries(code) ?? [];
  return locks.every((at) => {
    if (insideExists(at)) return true;
    const outermost = enclosing(at)[0];
    const cte = ctes.find((c) => c.open === outermost);
    if (!cte) return false;
    const named = new RegExp(String.raw`(?<![\w$."])${cte.name.replace(/\$/g, '\\$')}(?![\w$])`, 'gi');
    const readers = [...code.matchAll(named)].map((m) => m.index!).filter((i) => i >= cte.to || i < cte.from);
    return readers.length > 0 && readers.every(insideExists);
  });
}

const QUALIFIER = String.raw`(?<![\w$."])(?:("?\w+"?)\s*\.\s*)?`;
/**
 * What an UPDATE's WHERE can re-check on the newest version of an outbox row, each with the table
 * or alias it names (group 1, when written): `published_at IS NULL` (also IS NOT DISTINCT FROM
 * NULL, ISNULL, NOT … IS NOT NULL), or the row version read before (`xmin = $2`), which another
 * relay's mark changed.
 */
const RECHECKED_GUARDS = [
  new RegExp(String.raw`${QUALIFIER}"?published_at"?\s+(?:is\s+(?:not\s+distinct\s+from\s+)?null|isnull)\b`, 'gi'),
  new RegExp(String.raw`\bnot\s*\(?\s*${QUALIFIER}"?published_at"?\s+is\s+not\s+null\b`, 'gi'),
  new RegExp(String.raw`${QUALIFIER}"?xmin"?\s*(?:::\s*\w+\s*)?=`, 'gi'),
  new RegExp(String.raw`=\s*${QUALIFIER}"?xmin\b`, 'gi'),
];

/**
 * Whether `sql` is a SELECT whose FOR UPDATE sits only in queries of its WITH while it reads the
 * outbox itself, its rows not tied to the locked ones by id (`FROM outbox o, head WHERE o.id >=
 * head.id`): it returns rows the lock never took.
 */
export function lockBesideRows(sql: string): boolean {
  const code = sqlCodeOnly(sql);
  const ctes = withQueries(code);
  if (!ctes) return false;
  const main = code.slice(ctes[ctes.length - 1]!.to);
  const top = withoutSubqueries(main);
  if (!/^\s*select\b/i.test(top) || FOR_UPDATE.test(top) || !READS_OUTBOX.test(top)) return false;
  const lockers = ctes.filter((c) => FOR_UPDATE.test(code.slice(c.open, c.to))).map((c) => c.name);
  if (lockers.length === 0) return false;
  const names = new Set(lockers);
  for (const name of lockers) {
    for (const m of top.matchAll(new RegExp(String.raw`(?<![\w$."])${name}\s+(?:as\s+)?([a-z_]\w*)`, 'gi'))) {
      if (!IS_CLAUSE_WORD.test(m[1]!)) names.add(m[1]!.toLowerCase());
    }
  }
  const alt = [...names].join('|');
  const named = new RegExp(String.raw`(?<![\w$."])(?:${alt})(?![\w$])`, 'i');
  // Tied: a column of the locking query equal to another (under any name: `l.outbox_id = o.id`),
  // a join on common columns (USING, NATURAL), an IN / ANY over it (`= ANY(ARRAY(SELECT id FROM l))`),
  const tied =
    new RegExp(String.raw`(?<![\w$."])(?:${alt})\s*\.\s*"?[\w$]+"?\s*=(?!\s*>)|(?<![<>!])=\s*(?:${alt})\s*\.\s*"?[\w$]+"?`, 'i').test(top) ||
    /\busing\s*\(|\bnatural\s+(?:inner\s+)?join\b/i.test(top) ||
    [...main.matchAll(/\b(?:in|any)\s*\(/gi)].some((m) => named.test(bracketed(main, m.index! + m[0].length - 1))) ||
    // or an EXISTS over it tied to the outer rows (`EXISTS (SELECT 1 FROM locked l WHERE l.id = o.id)`).
    [...main.matchAll(/\bexists\s*\(/gi)].some((m) => {
      const inner = bracketed(main, m.index! + m[0].length - 1);
      return named.test(inner) && CORRELATED.test(inner);
    });
  return !tied;
}

/**
 * Whether `sql` reads the outbox FOR UPDATE, waiting for rows another relay holds (no SKIP LOCKED,
 * no NOWAIT), with no `published_at IS NULL` of the outbox in its own WHERE: once the other relay
 * commits, PostgreSQL re-checks only that WHERE on the newest row (a sub-select's answer is not
 * read again), so it returns the rows the other relay just published, and a read that does not
 * return published_at gives the code no way to tell.
 */
export function waitsWithoutRecheck(sql: string): boolean {
  const code = sqlCodeOnly(sql);
  const ctes = withQueries(code);
  const top = withoutSubqueries(ctes ? code.slice(ctes[ctes.length - 1]!.to) : code);
  if (!/^\s*select\b/i.test(top) || !FOR_UPDATE.test(top) || /\b(?:skip\s+locked|nowait)\b/i.test(top) || !READS_OUTBOX.test(top)) return false;
  // A read that returns published_at (or every column) lets the code skip a row another relay
  // published meanwhile, as PostgreSQL returns the newest version after the wait.
  const selected = /^\s*select\b([\s\S]*?)\bfrom\b/i.exec(top)?.[1] ?? '';
  if (/\*|\bpublished_at\b/i.test(selected)) return false;
  const where = /\bwhere\b([\s\S]*)$/i.exec(top)?.[1] ?? '';
  const own = new Set(['outbox']);
  for (const m of top.matchAll(OUTBOX_AS)) if (m[1]) own.add(m[1].toLowerCase());
  return !RECHECKED_GUARDS.some((guard) => [...where.matchAll(guard)].some((m) => !m[1] || own.has(m[1].replace(/"/g, '').toLowerCase())));
}

/** A waiting FOR UPDATE read that locks outbox rows but may return ones just published (waitsWithoutRecheck); once per text. */
const waitsUnchecked = memoByText((sql: string): boolean => FOR_UPDATE.test(sql) && rowLockCoversOutbox(sql) && !lockOnlyGates(sql) && !lockBesideRows(sql) && waitsWithoutRecheck(sql));

/** Whether the outbox read `sql` locks the rows it returns (see above); worked out once per text. */
const locksWhatItReads = memoByText((sql: string): boolean => {
  if (FOR_UPDATE.test(sql)) return rowLockCoversOutbox(sql) && !lockOnlyGates(sql) && !lockBesideRows(sql) && !waitsWithoutRecheck(sql);
  const write = outboxWrite(sql);
  if (write === null) return false;
  if (/^\s*delete/i.test(write)) return true;
  const where = /\bwhere\b([\s\S]*)$/i.exec(withoutSubqueries(write))?.[1];
  if (where === undefined) return false;
  // The guard is re-checked on the newest version of the row being written: a column of the
  // outbox under its own name or alias, not a copy of it in a derived table joined by FROM.
  const alias = /^\s*update\s+(?:only\s+)?(?:"?public"?\s*\.\s*)?"?outbox"?(?:\s+(?:as\s+)?(?!set\b)"?(\w+)"?)?/i.exec(write)?.[1];
  const own = new Set(['outbox', ...(alias ? [alias.toLowerCase()] : [])]);
  return RECHECKED_GUARDS.some((guard) => [...where.matchAll(guard)].some((m) => !m[1] || own.has(m[1].replace(/"/g, '').toLowerCase())));
});


/** The outbox ids among `rows` (a statement's result); null when a row has none to tell it by. */
function outboxIds(rows: unknown): number[] | null {
  if (!Array.isArray(rows)) return null;
  const ids: number[] = [];
  for (const row of rows as Record<string, unknown>[]) {
    const id = Number(row?.id);
    if (!Number.isInteger(id)) return null;
    ids.push(id);
  }
  return ids;
}

/** Whether the transaction's statements so far (up to a publish by `actor`) keep another relay off what it publishes. */
function relayLocked(tx: { events: readonly TraceEvent[]; before: readonly TraceEvent[] }, publish: TraceEvent, prepared: ReadonlyMap<string, string>, lockKeys: LockKeys, byOthers: (e: TraceEvent) => boolean): boolean {
  const actor = publish.actor;
  // A session lock taken before BEGIN and still held keeps the other relays out for the whole transaction.
  // A row of another table locked FOR UPDATE by every relay (a mutex row) makes the relays take turns.
  const held = new HeldLocks(actor, LOCK_TABLE_OUTBOX_EXCLUSIVELY, lockKeys, (e, sql) => !readsOutbox(sql) && outboxWrite(sql) === null && byOthers(e));
  for (const e of tx.before) held.see(e);
  held.inTransaction = false;
  /** Outbox rows this transaction has locked so far (FOR UPDATE, DELETE or a guarded UPDATE … RETURNING), each with the position it was locked at. */
  const lockedRows = new Map<number, number>();
  /** Where the latest SAVEPOINT was set, and the latest covered read made: ROLLBACK TO SAVEPOINT releases the row locks taken since. */
  let savepointAt = -1;
  let coveredAt = -1;
  let position = 0;
  /** Whether the latest read of the outbox was covered; null before any read. */
  let lastReadCovered: boolean | null = null;
  /** Whether a read locked rows without saying which (no id among its columns, a cursor): which rows are locked is then unknown. */
  let lockedUnknown = false;
  /** Whether a lock that keeps the other relays out (advisory, LOCK TABLE) was held at the latest read. */
  let lastReadUnderLock = false;
  for (const e of tx.events) {
    const data = e.data as { sql?: unknown; rows?: unknown } | undefined;
    const text = String(data?.sql ?? '');
    const executing = executedName(text);
    // A query in WITH that nothing reads never runs: its FOR UPDATE locks nothing.
    const sql = sqlAsRun(executing !== null ? (prepared.get(executing) ?? text) : text);
    held.see(e);
    position++;
    if (/^\s*savepoint\b/i.test(sqlCodeOnly(sql))) savepointAt = position;
    if (rollsBackToSavepoint(sql) && savepointAt >= 0) {
      for (const [id, at] of lockedRows) if (at > savepointAt) lockedRows.delete(id);
      if (lastReadCovered === true && coveredAt > savepointAt && !held.any) lastReadCovered = false;
    }
    if (!readsOutbox(sql)) continue;
    const ids = outboxIds(data?.rows);
    lastReadUnderLock = held.any;
    // A SKIP LOCKED read whose rows the relay did not go by (it did the same when they were all
    // another relay's, ../../engine/contention.ts) kept nobody off what it published.
    if (waitsUnchecked(sql) && !answerIgnored(e)) {
      // Its rows are locked, but may be ones the other relay published while this one waited:
      // publishing them needs a read of them again (by id, published_at IS NULL), or the lock of another.
      for (const id of ids ?? []) lockedRows.set(id, position);
      if (ids === null) lockedUnknown = true;
      lastReadCovered = held.any;
    } else if (locksWhatItReads(sql) && !answerIgnored(e)) {
      for (const id of ids ?? []) lockedRows.set(id, position);
      // A cursor's DECLARE returns nothing: its rows are locked as they are fetched.
      if (ids === null || /^\s*declare\b/i.test(sqlCodeOnly(sql))) lockedUnknown = true;
      lastReadCovered = true;
      coveredAt = position;
    } else {
      // Rows this transaction locked before, read again by id, are still its own until COMMIT.
      lastReadCovered = held.any || (ids !== null && ids.length > 0 && ids.every((id) => lockedRows.has(id)));
    }
  }
  if (lastReadCovered === null) return held.any;
  if (!lastReadCovered || lastReadUnderLock) return lastReadCovered;
  // Covered by row locks: the row published must be one of them. A locked read that only reserves
  // a share, and then the rows of an earlier unlocked read published, keeps nobody off those.
  const published = Number((publish.data as { body?: { orderId?: unknown } } | undefined)?.body?.orderId);
  return !Number.isInteger(published) || lockedUnknown || lockedRows.has(published);
}

/**
 * A relay that publishes from inside a transaction has locked the rows it read. PGlite runs one
 * transaction at a time, so in this tab a transaction alone keeps two relays apart; on PostgreSQL
 * their transactions overlap, and a plain SELECT in each reads the same unpublished rows. Only a
 * row lock (FOR UPDATE, with SKIP LOCKED to take other rows rather than wait) makes the second
 * relay leave them. Publishing outside a transaction is eachRowOnce's to judge: that race PGlite shows.
 */
export const locksWhatItPublishes: Invariant = {
  id: 'locks-what-it-publishes',
  title: 'A relay publishing inside a transaction has locked the rows it read (FOR UPDATE)',
  async check({ outcome, db }) {
    const trace = await withLearnerFunctions(outcome.trace, db);
    const prepared = await preparedStatements(trace, db);
    const lockKeys = await advisoryLockKeys(trace, db);
    const byOthers = ranByOthers(trace);
    const found = firstInTransaction(trace, (e, tx) => e.type === 'publish' && !relayLocked(tx, e, prepared, lockKeys, byOthers));
    if (!found) return { held: true, detail: 'every row published from inside a transaction was locked before or as it was read' };
    const { e } = found;
    const ignored = ignoredAnswerSentence(outcome.trace, e, 'published the same rows');
    const why =
      db.name === 'pglite'
        ? 'Each row went out once in this run only because PGlite runs one transaction at a time: the other relay waited for the COMMIT. On PostgreSQL both transactions run at once, both SELECTs read the same unpublished rows, and both relays publish them. '
        : 'On PostgreSQL two relays\' transactions run at once, and a plain SELECT in each reads the same unpublished rows, so both can publish them. '
    return {
      held: false,
      detail: `${e.actor} published from inside its transaction, but nothing locked the rows it published before or as it read them (no FOR UPDATE on the read it published from; a lock on another statement, an advisory lock taken after the read, shared, or keyed on the relay's own name, or a try-lock whose answer was never looked at, does not keep the other relay out). ${ignored}${why}Lock what you take: SELECT … FOR UPDATE SKIP LOCKED (an advisory lock every relay takes before the read, or an UPDATE … WHERE published_at IS NULL … RETURNING whose rows are the ones you publish, would do too).`,
      step: e.i,
    };
  },
};
