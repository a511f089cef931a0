/**
 * Two things the engine reads off a learner's SQL before it runs, with a small lexer that knows
 * where PostgreSQL's words are (not inside strings, quoted identifiers, comments or dollar quotes):
 *
 * - `onSimulatedClock`: CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIMESTAMP and
 *   LOCALTIME written as `now()` casts, and `'now'`, `'today'`, `'tomorrow'` and `'yesterday'`
 *   cast to a date/time type written from `now()`. They mean the transaction's start time, exactly as `now()`
 *   does, but they are keywords, so the `sim.now()` that shadows `now()` through `search_path`
 *   (./sql-clock.ts) cannot shadow them: left alone they read the machine's real clock, and a
 *   lease written with them never expires in simulated time (nor runs the same twice).
 * - `transactionControl`: whether a statement begins or ends a transaction (BEGIN, COMMIT, …),
 *   which a pool's `query` must not be given (see the engine's `env.db`); `transactionBoundary`,
 *   whether it opens or closes the transaction itself (ROLLBACK TO SAVEPOINT stays inside it).
 */
import { memoByText } from '../engine/text-memo';

/** A word of SQL outside strings, identifiers in quotes, comments and dollar quotes. */
interface Word {
  text: string;
  start: number;
  end: number;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** A plain string constant of `sql` ('…' or E'…'), with its value. */
interface StringToken {
  value: string;
  start: number;
  end: number;
}

/** The bare words of `sql`, in order. */
export function sqlWords(sql: string): Word[] {
  return sqlTokens(sql).words;
}

/** A stretch of `sql` that is not code: a comment, a string, a quoted identifier or a dollar quote. */
interface Opaque {
  start: number;
  end: number;
  identifier?: true;
  comment?: true;
}

/** The bare words, the plain string constants and the stretches that are not code of `sql`, each in order. */
function sqlTokens(sql: string): { words: Word[]; strings: StringToken[]; opaque: Opaque[] } {
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

/** What each time keyword means, as a cast of `now()`: the same instant, the transaction's start. */
const TIME_KEYWORDS: Record<string, string> = {
  current_timestamp: 'timestamptz',
  localtimestamp: 'timestamp',
  current_date: 'date',
  current_time: 'timetz',
  localtime: 'time',
};

/**
 * The date/time input strings that read the clock, as text made from `now()`: `'now'::timestamptz`
 * is the transaction's start time, as `now()` is, and 'today', 'tomorrow' and 'yesterday' are
 * midnights of the session's date (PostgreSQL's "special date/time inputs").
 */
const CLOCK_INPUTS: Record<string, string> = {
  now: '(now()::text)',
  today: '((now()::date)::text)',
  tomorrow: '((now()::date + 1)::text)',
  yesterday: '((now()::date - 1)::text)',
};

/** A date/time type name just before a string constant (`timestamptz 'now'`), as a cast can name it. */
const TYPED_LITERAL = /\b(timestamptz|timetz|date|(?:timestamp|time)(?:\s*\(\s*\d+\s*\))?(?:\s+with(?:out)?\s+time\s+zone)?)\s*$/i;

/** One piece of `sql` to write differently. */
interface Rewrite {
  start: number;
  end: number;
  text: string;
}

/** Where a time keyword stands (see the module's comment), and the `now()` cast it becomes. */
function keywordRewrites(sql: string, words: Word[]): Rewrite[] {
  const out: Rewrite[] = [];
  for (const w of words) {
    const type = TIME_KEYWORDS[w.text.toLowerCase()];
    // A qualified name (t.localtime) is a column, not the keyword.
    if (!type || /\.\s*$/.test(sql.slice(Math.max(0, w.start - 8), w.start))) continue;
    let end = w.end;
    let cast = type;
    // CURRENT_TIMESTAMP(3) and the like: the precision goes on the cast. CURRENT_DATE takes none.
    const precision = type === 'date' ? null : /^\s*\(\s*(\d+)\s*\)/.exec(sql.slice(end));
    if (precision) {
      cast = `${type}(${precision[1]})`;
      end += precision[0].length;
    }
    out.push({ start: w.start, end, text: `(now()::${cast})` });
  }
  return out;
}

/** A clock function named with its schema, which the search path cannot shadow: `pg_catalog.now(`. */
const QUALIFIED_CLOCK = /^\s*\.\s*(?:now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday)\s*\(/i;

/** `pg_catalog.now()` and its kin read the real clock: the schema becomes `sim`, whose stand-ins read the simulated one. */
function qualifiedClockRewrites(sql: string, words: Word[]): Rewrite[] {
  const out: Rewrite[] = [];
  for (const w of words) {
    if (w.text.toLowerCase() !== 'pg_catalog' || !QUALIFIED_CLOCK.test(sql.slice(w.end, w.end + 40))) continue;
    out.push({ start: w.start, end: w.end, text: 'sim' });
  }
  return out;
}

/**
 * Where a clock input string is cast to a date/time type — `'now'::timestamptz`,
 * `CAST('today' AS date)`, `timestamptz 'now'` — and the text from `now()` it becomes. A string
 * that is not cast ('now' stored in a text column) stays as it is.
 */
function inputRewrites(sql: string, strings: StringToken[]): Rewrite[] {
  const out: Rewrite[] = [];
  for (const s of strings) {
    const made = CLOCK_INPUTS[s.value.trim().toLowerCase()];
    // An E'…' string is left alone (its escapes are not read here); `date'today'` is no E string.
    const eString = s.start > 0 && /[eE]/.test(sql[s.start - 1]) && (s.start < 2 || !WORD_PART.test(sql[s.start - 2]));
    if (!made || eString) continue;
    const before = sql.slice(Math.max(0, s.start - 48), s.start);
    if (/^\s*::/.test(sql.slice(s.end)) || (/\bcast\s*\(\s*$/i.test(before) && /^\s+as\b/i.test(sql.slice(s.end)))) {
      out.push({ start: s.start, end: s.end, text: made });
      continue;
    }
    const typed = TYPED_LITERAL.exec(before);
    if (typed) out.push({ start: s.start - typed[0].length, end: s.end, text: `(${made}::${typed[1]})` });
  }
  return out;
}

/**
 * `sql` with what reads the clock written from `now()` (see the module's comment): the time
 * keywords, and the input strings 'now', 'today', 'tomorrow' and 'yesterday' cast to a date/time
 * type, which PostgreSQL reads from the same real clock. The same text when it has none.
 */
export const onSimulatedClock = memoByText((sql: string): string => clockRewritten(sql, false));

/**
 * The dollar-quoted bodies of the code a statement defines (`CREATE FUNCTION`, `CREATE PROCEDURE`,
 * `DO`), and every dollar-quoted stretch nested in them, outermost first; none for other statements.
 */
export const definedCodeBodies = memoByText((sql: string): string[] => (definesCodeBodies(sqlWords(sql)) ? dollarBodies(sql) : []));

/** Whether a statement whose words are `words` defines code: `DO`, or `CREATE` … FUNCTION / PROCEDURE. */
function definesCodeBodies(words: readonly Word[]): boolean {
  const first = words[0]?.text.toLowerCase();
  return first === 'do' || (first === 'create' && words.some((w) => /^(?:function|procedure)$/i.test(w.text)));
}

/** The dollar-quoted stretches of `sql` (not nested ones), each with where its body starts and ends. */
function dollarQuoted(sql: string, opaque: readonly Opaque[]): { start: number; end: number; body: string }[] {
  const out: { start: number; end: number; body: string }[] = [];
  for (const o of opaque) {
    if (o.comment || o.identifier || sql[o.start] !== '$') continue;
    const tag = /^\$[A-Za-z0-9_]*\$/.exec(sql.slice(o.start, o.start + 64))?.[0];
    if (!tag || o.end - o.start < 2 * tag.length || !sql.startsWith(tag, o.end - tag.length)) continue;
    out.push({ start: o.start + tag.length, end: o.end - tag.length, body: sql.slice(o.start + tag.length, o.end - tag.length) });
  }
  return out;
}

function dollarBodies(sql: string): string[] {
  return dollarQuoted(sql, sqlTokens(sql).opaque).flatMap(({ body }) => [body, ...dollarBodies(body)]);
}

/** A clock function called by its bare name (`now(`), not as a column or a qualified name. */
const BARE_CLOCK = /^(?:now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday)$/i;

/**
 * `sql` on the simulated clock. A statement that defines code (`CREATE FUNCTION`, `CREATE
 * PROCEDURE`, `DO`) has its dollar-quoted bodies written the same way, nested ones included, and
 * in a body a bare clock call names `sim` (`sim.now()`): a function may run with its own
 * search_path (`SET search_path = ''`, as PostgreSQL's docs advise), where a bare `now()` is
 * pg_catalog's and reads the real clock.
 */
function clockRewritten(sql: string, inBody: boolean): string {
  const { words, strings, opaque } = sqlTokens(sql);
  const rewrites = [...keywordRewrites(sql, words), ...inputRewrites(sql, strings)].map((r) => (inBody ? { ...r, text: r.text.replace(/\bnow\(\)/g, 'sim.now()') } : r));
  rewrites.push(...qualifiedClockRewrites(sql, words));
  if (inBody) {
    for (const w of words) {
      // Not a name being defined or read (`WITH now(ts) AS`, `INSERT INTO now (a)`).
      if (BARE_CLOCK.test(w.text) && /^\s*\(/.test(sql.slice(w.end)) && !/(?:\.|\b(?:with|as|into|from|join|table|update|function|procedure))\s*$/i.test(sql.slice(Math.max(0, w.start - 12), w.start))) {
        rewrites.push({ start: w.start, end: w.start, text: 'sim.' });
      }
    }
  }
  if (inBody || definesCodeBodies(words)) {
    for (const { start, end, body } of dollarQuoted(sql, opaque)) {
      const written = clockRewritten(body, true);
      if (written !== body) rewrites.push({ start, end, text: written });
    }
  }
  if (rewrites.length === 0) return sql;
  rewrites.sort((a, b) => a.start - b.start);
  let out = '';
  let from = 0;
  for (const r of rewrites) {
    if (r.start < from) continue;
    out += sql.slice(from, r.start) + r.text;
    from = r.end;
  }
  return out + sql.slice(from);
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
 * `pg_temp.` name). On PostgreSQL one belongs to its connection and is gone when that closes; the
 * tab's one session would share it between every simulated process and keep it over a crash.
 */
export const usesTemporary = memoByText((sql: string): boolean => {
  const code = sqlCodeOnly(sql);
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
