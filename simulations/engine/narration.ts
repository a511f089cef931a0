/**
 * The words of the trace: how a run narrates sleeps, statements, crashes and refusals. Every
 * line a learner reads in the event log is built here or in the provider that acted, and these
 * strings are part of the trace hash, so a change of wording is a change of every golden hash.
 */
import { memoByText } from './text-memo';

/** A sleep's length as the trace says it: "500 ms", "30 s", "25 h", "21 h 30 min" (not "90000000 ms"). */
export function sleepText(ms: number): string {
  // Seconds from 1 s up, as the rest of the narration counts time ("at 49.6 s"), not "3000 ms".
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 3_600_000) return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${+(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`;
  // Rounded to the minute as a whole, so 14 h 59 min 40 s reads "15 h", not "14 h 60 min".
  const total = Math.round(ms / 60_000);
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
}

export function ordinal(n: number): string {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] || s[v] || s[0]}`;
}

/**
 * Which statement a crash narrowed by `sql` hit, for narration ("its 1st db step matching INSERT
 * INTO orders"). The plan's words name the statement, so the statement's own text is not repeated
 * after them: "… matching INSERT INTO orders (INSERT INTO orders (customer_id, …" said it twice.
 * After the step, the event just before the crash narrates the whole statement anyway.
 */
export function sqlCrashWhen(n: number, sql: string): string {
  return `${ordinal(n)} db step matching ${sql.replace(/\s+/g, ' ').trim()}`;
}

const labels = new Map<string, string>();

/** The first words of a statement, for narration. */
export function sqlLabel(text: string): string {
  let label = labels.get(text);
  if (label === undefined) {
    // The same few statements run thousands of times in an exploration: shorten each once.
    const flat = text.replace(/\s+/g, ' ').trim();
    label = flat.length > 72 ? `${flat.slice(0, 69)}…` : flat;
    if (labels.size >= 500) labels.clear();
    labels.set(text, label);
  }
  return label;
}

export function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** "1 row", "no rows", "1 row updated": what a statement did, for narration. */
export function rowSummary(text: string, res: { rows: unknown[]; affectedRows?: number }): string {
  const kind = statementKind(text);
  if (kind !== 'other' && kind !== 'ok' && res.rows.length === 0 && res.affectedRows !== undefined) {
    return `${rowCount(res.affectedRows)} ${kind}`;
  }
  if (kind === 'ok') return 'ok';
  return rowCount(res.rows.length);
}

/** What narration says a statement did, by its first word. */
const statementKind = memoByText((text): 'updated' | 'deleted' | 'inserted' | 'inserted or updated' | 'ok' | 'other' => {
  const verb = /^\s*(UPDATE|DELETE|INSERT)\b/i.exec(text)?.[1]?.toUpperCase();
  if (verb === 'UPDATE') return 'updated';
  if (verb === 'DELETE') return 'deleted';
  // An upsert's count does not say which it did: a replayed upsert updates the row it made, and
  // "1 row inserted" read as a second row (replay-safety).
  if (verb === 'INSERT') return /\bON\s+CONFLICT\b[\s\S]*\bDO\s+UPDATE\b/i.test(text) ? 'inserted or updated' : 'inserted';
  return /^\s*(BEGIN|COMMIT|ROLLBACK|START|END|SET)\b/i.test(text) ? 'ok' : 'other';
});

function rowCount(n: number): string {
  return `${n === 0 ? 'no' : n} row${n === 1 ? '' : 's'}`;
}

/** `err` with the stack of where the statement was issued (its message and fields unchanged). */
export function withCallSite(err: unknown, callSite: Error | undefined): unknown {
  if (!(err instanceof Error) || !callSite?.stack) return err;
  const frames = callSite.stack.split('\n').slice(1).join('\n');
  try {
    err.stack = `${err.name}: ${err.message}\n${frames}`;
  } catch {
    // A frozen error keeps its own stack.
  }
  return err;
}

/** Why `env.db.query` refuses a statement while the same process's client holds a transaction open. */
export function poolInsideTransactionRefusal(): string {
  return (
    `env.db.query while this process's client holds a transaction open: like pg.Pool's query, it runs on another pooled connection, ` +
    `outside that transaction, so on PostgreSQL it commits on its own at once (a crash before your COMMIT keeps it), cannot see your ` +
    `uncommitted rows, and waits forever for a row your transaction has locked. Issue it on the client: client.query(…)`
  );
}

/** Why a client refuses a statement while another client of the same process holds a transaction open. */
export function otherClientInsideTransactionRefusal(): string {
  return (
    `a query on a second client while another client of this process holds a transaction open: each client from env.db.connect() ` +
    `is a connection of its own, so on PostgreSQL this statement runs outside that transaction: it commits on its own at once ` +
    `(a crash before the other client's COMMIT keeps it), cannot see that transaction's uncommitted rows, and waits forever for a ` +
    `row it has locked. Run it on the client that began the transaction`
  );
}

/** Why `env.db.query` refuses a session-level advisory lock or unlock. */
export function poolSessionLockRefusal(): string {
  return (
    `a session-level advisory lock or unlock through env.db.query: like pg.Pool's query, each statement runs on whichever pooled ` +
    `connection is free, so the unlock can land on a connection that does not hold the lock (it answers false, and the lock stays ` +
    `held by an idle connection for good), and another caller's lock on the holder's connection is granted at once. Take one client ` +
    `(env.db.connect()) for the lock, the work and the unlock, or use pg_advisory_xact_lock inside a transaction`
  );
}

/** Why `env.db.query` refuses a statement that begins or ends a transaction (`word`: BEGIN, COMMIT, …). */
export function poolTransactionRefusal(word: string): string {
  return (
    `${word} through env.db.query: like pg.Pool's query, it runs each statement on whichever pooled connection is free, ` +
    `so a transaction begun this way would not hold the statements after it. Take one connection for the whole transaction: ` +
    `const client = await env.db.connect(), then client.query('BEGIN') … client.query('COMMIT') and client.release() in a finally; ` +
    `or withTransaction(env.db, async (tx) => { … })`
  );
}
