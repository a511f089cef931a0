/**
 * The clock words of a learner's SQL, written onto simulated time before the statement runs.
 *
 * - `onSimulatedClock`: CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIMESTAMP and
 *   LOCALTIME written as `now()` casts, and `'now'`, `'today'`, `'tomorrow'` and `'yesterday'`
 *   cast to a date/time type written from `now()`. They mean the transaction's start time, exactly
 *   as `now()` does, but they are keywords, so the `sim.now()` that shadows `now()` through
 *   `search_path` (./sql-clock.ts) cannot shadow them: left alone they read the machine's real
 *   clock, and a lease written with them never expires in simulated time (nor runs the same twice).
 *   The bodies of functions, procedures and DO blocks are written the same way.
 * - `clockInputsAt`, `clockParamsAt`: the same input strings left bare (`lease_until < 'now'`,
 *   `VALUES ($1, 'now')`) or bound as parameters. PostgreSQL gives a bare string the type its
 *   place asks for and reads 'now' as the transaction's start in that type, which no one
 *   expression made from `now()` can be; the text of the instant itself can, so the back-end
 *   writes it in when it knows the instant.
 */
import { memoByText } from '../engine/text-memo';
import { isoInstant } from '../engine/sim-time';
import { sqlTokens, sqlWords, WORD_PART, type Opaque, type StringToken, type Word } from './sql-words';

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

/** Whether `s` is an E'…' string, whose escapes are not read here; `date'today'` is no E string. */
function isEString(sql: string, s: StringToken): boolean {
  return s.start > 0 && /[eE]/.test(sql[s.start - 1]) && (s.start < 2 || !WORD_PART.test(sql[s.start - 2]));
}

/** Whether `s` is cast with `::` or CAST(… AS …). */
function isCast(sql: string, s: StringToken): boolean {
  return /^\s*::/.test(sql.slice(s.end)) || (/\bcast\s*\(\s*$/i.test(sql.slice(Math.max(0, s.start - 48), s.start)) && /^\s+as\b/i.test(sql.slice(s.end)));
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
    if (!made || isEString(sql, s)) continue;
    const before = sql.slice(Math.max(0, s.start - 48), s.start);
    if (isCast(sql, s)) {
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

/** The input strings a bare literal reads the clock with: 'now' the instant, the others a midnight so many days from its date. */
const BARE_INPUTS: Record<string, number | null> = { now: null, today: 0, tomorrow: 1, yesterday: -1 };

/** The comparisons beside which a bare string takes the other side's type (a time's, here). */
const COMPARISONS = new Set(['<', '>', '<=', '>=', '=', '<>', '!=']);
/** The operator just before the string, brackets opened in between skipped (`< ('now')`). */
const OPERATOR_BEFORE = /([-+*/<>=~!@#%^&|`?]+)[\s(]*$/;
/** The operator just after the string, brackets closed in between skipped. */
const OPERATOR_AFTER = /^[\s)]*([-+*/<>=~!@#%^&|`?]+)/;
/** A pattern match, whose operand is text: `LIKE 'now'`, `SIMILAR TO 'today'`. */
const PATTERN_BEFORE = /\b(?:like|ilike|similar\s+to|escape)[\s(]*$/i;

/** A bare clock input string of a statement: where it stands and the word. */
interface BareInput {
  start: number;
  end: number;
  word: string;
}

/**
 * The clock input strings of `sql` left bare, not cast (those are `onSimulatedClock`'s):
 * `lease_until < 'now'`, `< ('now')`, `BETWEEN 'yesterday' AND 'now'`, `SET lease_until = 'now'`,
 * `VALUES ($1, 'now')`, `greatest(lease_until, 'now')`. PostgreSQL gives a bare string the type
 * its place asks for, and reads the word in it; which type that is only the database knows, so
 * every one is taken for a time but the operand of an operator other than a comparison
 * (`payload->>'now'`, `'now' || x`) or of a pattern match. A text column given or compared with
 * the word itself (`word = 'now'`) is read the same way: a trade made for the times learners write,
 * which this cannot tell apart from it.
 */
const bareClockInputs = memoByText((sql: string): BareInput[] => {
  const out: BareInput[] = [];
  for (const s of sqlTokens(sql).strings) {
    const word = s.value.trim().toLowerCase();
    if (!(word in BARE_INPUTS) || isEString(sql, s) || isCast(sql, s)) continue;
    const before = sql.slice(Math.max(0, s.start - 120), s.start);
    if (TYPED_LITERAL.test(before) || PATTERN_BEFORE.test(before)) continue;
    const op = OPERATOR_BEFORE.exec(before)?.[1] ?? OPERATOR_AFTER.exec(sql.slice(s.end, s.end + 16))?.[1];
    if (op !== undefined && !COMPARISONS.has(op)) continue;
    out.push({ start: s.start, end: s.end, word });
  }
  return out;
});

/** What clock input `word` reads at `atMs`, as text: 'now' the instant, the others a date. */
function clockInputText(word: string, atMs: number): string {
  const days = BARE_INPUTS[word];
  const iso = isoInstant(days === null || days === undefined ? atMs : atMs + days * 86_400_000);
  return days === null || days === undefined ? `${iso.slice(0, 10)} ${iso.slice(11, -1)}+00` : iso.slice(0, 10);
}

/**
 * `params` with each one that is a clock input word ('now', 'today', …, as a string) written as the
 * text of what it reads at `atMs`: bound to a time, PostgreSQL reads the word as the transaction's
 * start, as it does in the text (see `clockInputsAt`). The same array when none is.
 */
export function clockParamsAt(params: readonly unknown[] | undefined, atMs: number): unknown[] | undefined {
  // Every statement of every schedule passes here: a test that allocates nothing for the op keys and the like.
  if (!params?.some((p) => typeof p === 'string' && CLOCK_WORD_PARAM.test(p))) return params as unknown[] | undefined;
  return params.map((p) => (typeof p === 'string' && CLOCK_WORD_PARAM.test(p) ? clockInputText(p.trim().toLowerCase(), atMs) : p));
}

/** A parameter that is one of BARE_INPUTS' words, whitespace around it as `trim` takes it off. */
const CLOCK_WORD_PARAM = new RegExp(`^\\s*(?:${Object.keys(BARE_INPUTS).join('|')})\\s*$`, 'i');

/**
 * `sql` with each bare clock input string (see `bareClockInputs`) written as the text of what it
 * reads at `atMs`, the transaction's start on the simulated clock: 'now' as the instant
 * (`'2026-01-05 09:00:00.000+00'`), 'today', 'tomorrow' and 'yesterday' as a date. PostgreSQL then
 * types the text from the other side exactly as it would the word, and, as it does with the word,
 * a PREPAREd statement keeps the instant it was prepared at. Dates are the UTC date, the session's
 * time zone on both back-ends. The same text when it has none.
 */
export function clockInputsAt(sql: string, atMs: number): string {
  const bare = bareClockInputs(sql);
  if (bare.length === 0) return sql;
  let out = '';
  let from = 0;
  for (const b of bare) {
    out += `${sql.slice(from, b.start)}'${clockInputText(b.word, atMs)}'`;
    from = b.end;
  }
  return out + sql.slice(from);
}
