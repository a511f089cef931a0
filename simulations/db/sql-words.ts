/**
 * What the engine reads off a learner's SQL before it runs, with a small lexer that knows where
 * PostgreSQL's words are (not inside strings, quoted identifiers, comments or dollar quotes); the
 * clock words it rewrites are in ./sql-clock-words.ts.
 *
 * - `transactionControl`: whether a statement begins or ends a transaction (BEGIN, COMMIT, …),
 *   which a pool's `query` must not be given (see the engine's `env.db`); `transactionBoundary`,
 *   whether it opens or closes the transaction itself (ROLLBACK TO SAVEPOINT stays inside it).
 * - the session state the tab's one session cannot keep per process (temporary objects, settings),
 *   and the names of prepared statements.
 */
import { memoByText } from '../engine/text-memo';

/** A word of SQL outside strings, identifiers in quotes, comments and dollar quotes. */
export interface Word {
  text: string;
  start: number;
  end: number;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
export const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** A plain string constant of `sql` ('…' or E'…'), with its value. */
export interface StringToken {
  value: string;
  start: number;
  end: number;
}

/** The bare words of `sql`, in order. */
export function sqlWords(sql: string): Word[] {
  return sqlTokens(sql).words;
}

/** A stretch of `sql` that is not code: a comment, a string, a quoted identifier or a dollar quote. */
export interface Opaque {
  start: number;
  end: number;
  identifier?: true;
  comment?: true;
}

/** The bare words, the plain string constants and the stretches that are not code of `sql`, each in order. */
export function sqlTokens(sql: string): { words: Word[]; strings: StringToken[]; opaque: Opaque[] } {
  const words: Word[] = [];
  const strings: StringToken[] = [];
  const opaque: Opaque[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    const start = i;
    if (c === '-' && sql[i + 1] === '-') {
      const eol = sql.indexOf('\n', i + 2);
      i = eol === -1 ? n : eol + 1;
      opaque.push({ start, end: i, comment: true });
    } else if (c === '/' && sql[i + 1] === '*') {
      // Block comments nest in PostgreSQL.
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
      opaque.push({ start, end: Math.min(i, n), comment: true });
    } else if (c === "'") {
      // E'…' strings take backslash escapes; every string takes '' for a quote.
      const escapes = i > 0 && /[eE]/.test(sql[i - 1]) && (i < 2 || !WORD_PART.test(sql[i - 2]));
      i++;
      while (i < n) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === "'") {
          if (sql[i + 1] === "'") i += 2;
          else break;
        } else i++;
      }
      i++;
      // The value only matters for the few clock words (see onSimulatedClock): no escapes read.
      strings.push({ value: sql.slice(start + 1, Math.min(i, n) - 1).replace(/''/g, "'"), start, end: Math.min(i, n) });
      opaque.push({ start, end: Math.min(i, n) });
    } else if (c === '"') {
      i++;
      while (i < n) {
        if (sql[i] === '"') {
          if (sql[i + 1] === '"') i += 2;
          else break;
        } else i++;
      }
      i++;
      opaque.push({ start, end: Math.min(i, n), identifier: true });
    } else if (c === '$' && !(i > 0 && WORD_PART.test(sql[i - 1]))) {
      // $tag$…$tag$ (tag possibly empty); $1 is a parameter.
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        i = close === -1 ? n : close + tag[0].length;
        opaque.push({ start, end: i });
      } else i++;
    } else if (WORD_START.test(c)) {
      while (i < n && WORD_PART.test(sql[i])) i++;
      // The E of E'…' is the string's prefix, not a word.
      if (!(i - start === 1 && /[eE]/.test(c) && sql[i] === "'")) words.push({ text: sql.slice(start, i), start, end: i });
    } else i++;
  }
  return { words, strings, opaque };
}

/**
 * `sql` with its comments blanked to spaces (the same length, line breaks kept), strings and quoted
 * names as written: what a checker reads of a statement, so that a clause that survives only in a
 * comment (`-- was FOR UPDATE SKIP LOCKED`) counts for nothing, as in PostgreSQL.
 */
export const sqlWithoutComments = memoByText((sql: string): string => (!sql.includes('--') && !sql.includes('/*') ? sql : blanked(sql, (o) => o.comment === true)));

/** `sql` with the stretches `which` picks blanked to spaces (line breaks kept); a quoted identifier blanked keeps a `q` where it starts. */
function blanked(sql: string, which: (o: Opaque) => boolean): string {
  const out = sql.split('');
  for (const o of sqlTokens(sql).opaque) {
    if (!which(o)) continue;
    for (let k = o.start; k < o.end; k++) if (out[k] !== '\n') out[k] = ' ';
    if (o.identifier) out[o.start] = 'q';
  }
  return out.join('');
}

/**
 * `sql` with every comment, string, quoted identifier and dollar quote blanked to spaces (the same
 * length, line breaks kept), so that patterns over it see only code; a quoted identifier keeps a
 * `q` where it starts, so that it still reads as a word.
 */
export function sqlCodeOnly(sql: string): string {
  return blanked(sql, () => true);
}


const TRANSACTION_WORDS = new Set(['begin', 'start', 'commit', 'end', 'rollback', 'abort', 'savepoint', 'release']);

/**
 * The word a statement that begins or ends a transaction starts with (`BEGIN`, `COMMIT`, …, as
 * written), or null. `START` counts only as START TRANSACTION; PREPARE TRANSACTION and
 * COMMIT/ROLLBACK PREPARED count too.
 */
export const transactionControl = memoByText((sql: string): string | null => {
  const [first, second] = sqlWords(sql);
  if (!first) return null;
  const word = first.text.toLowerCase();
  if (word === 'start') return second?.text.toLowerCase() === 'transaction' ? first.text : null;
  if (word === 'prepare') return second?.text.toLowerCase() === 'transaction' ? first.text : null;
  return TRANSACTION_WORDS.has(word) ? first.text : null;
});

/**
 * Whether `sql` opens the session's transaction ('begin': BEGIN, START TRANSACTION) or closes it
 * ('end': COMMIT, END, ROLLBACK, ABORT; not ROLLBACK TO SAVEPOINT, which stays inside it).
 */
export const transactionBoundary = memoByText((sql: string): 'begin' | 'end' | null => {
  const word = transactionControl(sql)?.toLowerCase();
  if (word === 'begin' || word === 'start') return 'begin';
  if (word === 'commit' || word === 'end' || word === 'abort') return 'end';
  if (word === 'rollback') return rollsBackToSavepoint(sql) ? null : 'end';
  return null;
});

/**
 * Whether `sql` is ROLLBACK TO SAVEPOINT: it stays inside the transaction, but undoes every
 * set_config made since the savepoint, the virtual clock's included.
 */
export const rollsBackToSavepoint = memoByText(
  (sql: string): boolean => transactionControl(sql)?.toLowerCase() === 'rollback' && /^\s*rollback\s+(?:(?:work|transaction)\s+)?to\b/i.test(sqlWords(sql).map((w) => w.text).join(' ')),
);

/**
 * Whether `sql` creates or names a temporary object (CREATE TEMP TABLE, SELECT … INTO TEMP, a
 * `pg_temp.` name) that outlives its transaction (not one created ON COMMIT DROP). On PostgreSQL one belongs to its connection and is gone when that closes; the
 * tab's one session would share it between every simulated process and keep it over a crash.
 */
export const usesTemporary = memoByText((sql: string): boolean => {
  const code = sqlCodeOnly(sql);
  // CREATE TEMP TABLE … ON COMMIT DROP lives only as long as its transaction, which no other
  // process's statements enter in the tab (one transaction at a time) and which a crash rolls back.
  if (/\bon\s+commit\s+drop\b/i.test(code) && !/\binto\s+(?:temp|temporary)\b/i.test(code) && !/\bpg_temp\s*\./i.test(code)) return false;
  return /\bcreate\s+(?:or\s+replace\s+)?(?:(?:global|local)\s+)?temp(?:orary)?\s+(?:unlogged\s+)?(?:table|view|sequence|recursive\s+view)\b/i.test(code) || /\binto\s+(?:temp|temporary)\b/i.test(code) || /\bpg_temp\s*\./i.test(code);
});

/** Why the tab refuses a statement `usesTemporary` finds. */
export const TEMPORARY_REFUSAL =
  'temporary tables are not simulated here: on PostgreSQL a TEMP table belongs to one connection and is gone when it closes (and pg.Pool may give each query another connection), while this tab runs every worker on one session, where it would be shared by all of them and survive a crash. Keep what has to outlive a statement in an ordinary table';

/**
 * Whether `sql` sets a session-level setting the way code keeps state in it: `set_config(…, …,
 * false)` (not local to the transaction), or `SET [SESSION] a.custom_name`. On PostgreSQL such a
 * setting is its connection's, gone when it closes; the tab's one session would share it between
 * every simulated process and keep it over a crash.
 */
export const setsSessionState = memoByText((sql: string): boolean => {
  const code = sqlCodeOnly(sql);
  if (/^\s*set\s+(?:session\s+)?(?!local\b)[a-z_][\w$]*\s*\.\s*[a-z_]/i.test(code)) return true;
  for (const m of code.matchAll(/\bset_config\s*\(/gi)) {
    // The call's top-level arguments, read from the raw text at the positions the code-only text
    // shows to be outside strings and comments.
    const args: string[] = [];
    let depth = 0;
    let from = m.index! + m[0].length;
    for (let i = from; i < code.length; i++) {
      const c = code[i];
      if (c === '(') depth++;
      else if (c === ')' && depth > 0) depth--;
      else if ((c === ',' && depth === 0) || (c === ')' && depth === 0)) {
        args.push(sql.slice(from, i).trim());
        from = i + 1;
        if (c === ')') break;
      }
    }
    if (args.length === 3 && /^(?:false|'f(?:alse)?'|'off'|'no'|'0'|0)(?:\s*::\s*bool(?:ean)?)?$/i.test(args[2]!)) return true;
  }
  return false;
});

/** Why the tab refuses a statement `setsSessionState` finds. */
export const SESSION_STATE_REFUSAL =
  'session-level settings are not simulated here: on PostgreSQL a setting made with SET or set_config(…, false) belongs to one connection and is gone when it closes (and pg.Pool may give each query another connection), while this tab runs every worker on one session, where it would be shared by all of them and survive a crash. Keep what has to outlive a statement in a table (set_config(…, true) and SET LOCAL, which end with the transaction, are fine)';

/** `PREPARE name [(types)] AS statement`: the name (as PostgreSQL keeps it, see `nameAfter`) and the statement as written; null for anything else. */
export const preparedStatement = memoByText((sql: string): { name: string; text: string } | null => {
  const m = /^\s*prepare\s+(q\s*|[\w$]+)\s*(?:\([^)]*\))?\s+as\s+([\s\S]+)$/i.exec(sqlCodeOnly(sql));
  const name = m ? nameAfter(sql, 'prepare') : null;
  return m && name !== null ? { name, text: sql.slice(sql.length - m[2]!.length) } : null;
});

/** `EXECUTE name [(arguments)]`: the name (as PostgreSQL keeps it, see `nameAfter`); null for anything else. */
export const executedName = memoByText((sql: string): string | null => (/^\s*execute\s+(?:q|[\w$])/i.test(sqlCodeOnly(sql)) ? nameAfter(sql, 'execute') : null));

/**
 * The name right after the statement's first word, as PostgreSQL keeps it: a quoted name exactly
 * ("claimA", its "" read as one quote), an unquoted one in lower case.
 */
function nameAfter(sql: string, word: string): string | null {
  const m = new RegExp(String.raw`^\s*${word}\s+(?:"((?:[^"]|"")+)"|([\w$]+))`, 'i').exec(sql);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.toLowerCase();
}

/** The index just past the bracket that closes the one opened at `open`, or -1. */
export function closingBracket(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

/** The text inside the brackets that open at `open`, up to the one that closes them (or the end). */
export function bracketed(sql: string, open: number): string {
  const end = closingBracket(sql, open);
  return end === -1 ? sql.slice(open + 1) : sql.slice(open + 1, end - 1);
}

/**
 * The common table expressions of a statement's WITH, read from its code-only text (`sqlCodeOnly`):
 * each one's lower-case name, where its definition starts, where its body's bracket opens and the
 * index just past the one that closes it, and whether it is a plain query (SELECT, VALUES, TABLE).
 * Null when the statement has no WITH or it cannot be read (a quoted name, unbalanced brackets).
 */
export function withQueries(code: string): { name: string; from: number; open: number; to: number; query: boolean }[] | null {
  const head = /^\s*with\s+(?:recursive\s+)?/i.exec(code);
  if (!head) return null;
  const ctes: { name: string; from: number; open: number; to: number; query: boolean }[] = [];
  let pos = head[0].length;
  for (;;) {
    const def = /^\s*([a-z_][\w$]*)\s*(?:\([^()]*\)\s*)?as\s*(?:(?:not\s+)?materialized\s*)?\(/i.exec(code.slice(pos));
    if (!def) return null;
    const open = pos + def[0].length - 1;
    const close = closingBracket(code, open);
    if (close < 0) return null;
    ctes.push({ name: def[1]!.toLowerCase(), from: pos, open, to: close, query: /^\s*(?:select|values|table)\b/i.test(code.slice(open + 1, close - 1)) });
    const comma = /^\s*,/.exec(code.slice(close));
    if (!comma) return ctes;
    pos = close + comma[0].length;
  }
}

/**
 * `sql` without the common table expressions of its WITH that are plain queries (SELECT, VALUES,
 * TABLE) which nothing else in the statement names. PostgreSQL runs a query in WITH only as far as
 * the statement reads it, so one never read never runs: a FOR UPDATE or an advisory lock written
 * there takes nothing. Data-modifying ones always run, and are kept; so is everything when the
 * WITH cannot be read (a quoted name, unbalanced brackets).
 */
export const withoutUnusedCtes = memoByText((sql: string): string => {
  const code = sqlCodeOnly(sql);
  const ctes = withQueries(code);
  if (!ctes) return sql;
  const head = /^\s*with\s+(?:recursive\s+)?/i.exec(code)!;
  const bodyEnd = ctes[ctes.length - 1]!.to;
  const unused = new Set<number>();
  // A query named only by unused ones is unused too: until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    ctes.forEach((cte, i) => {
      if (!cte.query || unused.has(i)) return;
      const named = new RegExp(String.raw`(?<![\w$."])${cte.name.replace(/\$/g, '\\$')}(?![\w$])`, 'i');
      const readers = [code.slice(bodyEnd), ...ctes.map((other, j) => (j === i || unused.has(j) ? '' : code.slice(other.from, other.to)))];
      if (!readers.some((text) => named.test(text))) {
        unused.add(i);
        changed = true;
      }
    });
  }
  if (!unused.size) return sql;
  const kept = ctes.filter((_, i) => !unused.has(i)).map((cte) => sql.slice(cte.from, cte.to).trim());
  const rest = sql.slice(bodyEnd);
  return kept.length ? `${sql.slice(0, head[0].length)}${kept.join(', ')}${rest}` : rest.replace(/^\s+/, '');
});

/** The statement as PostgreSQL runs it: without its comments, and without the WITH queries nothing reads (`withoutUnusedCtes`). */
export const sqlAsRun = (sql: string): string => withoutUnusedCtes(sqlWithoutComments(sql));
