/**
 * SQL that PostgreSQL 15, the course's standard, rejects but the tab's PGlite (PostgreSQL 18)
 * accepts. A fix that relies on it would pass in the browser and fail on the learner's server, so
 * the engine makes such a statement fail in the tab as it would on 15: with 15's message and
 * SQLSTATE, raised inside the database so that a transaction around it is aborted, as on 15.
 *
 * What is recognised: functions added after 15 (uuidv7(), any_value(), random(min, max), …),
 * MERGE … RETURNING and WHEN NOT MATCHED BY SOURCE (17), RETURNING old./new. (18), the IS JSON
 * predicate and the SQL/JSON constructors (16: JSON_OBJECT('k': v), JSON_ARRAY(…); JSON_VALUE and
 * its kin, 17), numeric literals with underscores or in hex, octal or binary (16), and a subquery
 * or VALUES in FROM without an alias (allowed from 16), AT LOCAL (17) and generated columns that
 * are not STORED (virtual, 18). Words are
 * read outside strings, quoted identifiers, comments and dollar quotes, and in the bodies of the
 * functions, procedures and DO blocks a statement defines.
 */
import { memoByText } from '../engine/text-memo';
import { definedCodeBodies } from './sql-clock-words';
import { closingBracket, sqlCodeOnly } from './sql-words';

/** Why PostgreSQL 15 rejects a statement: its message and SQLSTATE. */
export interface Pg15Refusal {
  message: string;
  code: string;
}

/** Functions PostgreSQL 15 does not have, with the version that added them. */
const NEWER_FUNCTIONS: Record<string, number> = {
  uuidv7: 18,
  uuidv4: 18,
  casefold: 18,
  array_sort: 18,
  array_reverse: 18,
  crc32: 18,
  crc32c: 18,
  erf: 18,
  erfc: 18,
  gamma: 18,
  lgamma: 18,
  uuid_extract_timestamp: 17,
  uuid_extract_version: 17,
  merge_action: 17,
  json_table: 17,
  to_bin: 17,
  to_oct: 17,
  json_exists: 17,
  json_query: 17,
  json_value: 17,
  json_scalar: 17,
  json_serialize: 17,
  json_array: 16,
  json_arrayagg: 16,
  json_objectagg: 16,
  any_value: 16,
  array_sample: 16,
  array_shuffle: 16,
  random_normal: 16,
  date_add: 16,
  date_subtract: 16,
  pg_input_is_valid: 16,
  pg_input_error_info: 16,
};

/** Words after which a subquery in FROM has no alias. */
const NOT_AN_ALIAS = new Set(
  'where order group having limit offset for join inner left right full cross natural on using union except intersect window returning fetch'.split(' '),
);

function refusal(sql: string, inBody = false): Pg15Refusal | null {
  const lower = sqlCodeOnly(sql).toLowerCase();
  for (const m of lower.matchAll(/\b([a-z_][a-z0-9_]*)\s*\(/g)) {
    const name = m[1]!;
    const before = lower.slice(0, m.index).trimEnd();
    // A name after a dot is a column or a schema's function (sim.now); after AS or a table's name it is an alias.
    if (before.endsWith('.')) continue;
    if (name in NEWER_FUNCTIONS) return { message: `function ${name}() does not exist`, code: '42883' };
    if (name === 'random' && /^\(\s*[^)\s]/.test(lower.slice(m.index! + m[0].length - 1))) {
      return { message: 'function random(integer, integer) does not exist', code: '42883' };
    }
  }
  const words = lower.trim();
  const isMerge = /^(with\b[\s\S]*\)\s*)?merge\b/.test(words);
  if (isMerge && /\breturning\b/.test(lower)) return { message: 'syntax error at or near "RETURNING"', code: '42601' };
  if (isMerge && /\bnot\s+matched\s+by\b/.test(lower)) return { message: 'syntax error at or near "BY"', code: '42601' };
  const returning = /\breturning\b([\s\S]*)$/.exec(lower);
  // RETURNING old.x / new.x, unless the statement names a table or a subquery old or new itself.
  const aliased = /\b(old|new)\b(?!\s*\.)/.test(lower);
  // In a function's body OLD and NEW may be a trigger's row variables, which 15 reads there too.
  if (returning && !aliased && !inBody) {
    const row = /\b(old|new)\s*\./.exec(returning[1]!);
    if (row) return { message: `missing FROM-clause entry for table "${row[1]}"`, code: '42P01' };
  }
  if (/\bis\s+(not\s+)?json\b/.test(lower)) return { message: 'syntax error at or near "JSON"', code: '42601' };
  // AT LOCAL (17): 15 knows only AT TIME ZONE.
  if (/\bat\s+local\b/.test(lower)) return { message: 'syntax error at or near "LOCAL"', code: '42601' };
  // A generated column that is not STORED is virtual (18); 15 has only stored ones.
  for (const m of lower.matchAll(/\bgenerated\s+always\s+as\s*\(/g)) {
    const end = closingBracket(lower, m.index! + m[0].length - 1);
    if (end === -1) continue;
    const next = /^\s*([a-z_]+|[^\s]|$)/.exec(lower.slice(end))?.[1] ?? '';
    if (next !== 'stored') return { message: `syntax error at or near "${next === '' ? 'end of input' : next.toUpperCase()}"`, code: '42601' };
  }
  // 60_000, 0x1f, 0o17, 0b101 (16): 15 reads the digits and rejects what follows them.
  const literal = /(?<![\w$.])(\d+_|0[xob])(?=\w)/.exec(lower);
  if (literal) return { message: `trailing junk after numeric literal at or near "${literal[1]}"`, code: '42601' };
  // JSON_OBJECT('k': v) and JSON_OBJECT('k' VALUE v) (16); 15 has only json_object(text[]).
  for (const m of lower.matchAll(/\bjson_object\s*\(/g)) {
    const open = m.index! + m[0].length - 1;
    const end = closingBracket(lower, open);
    const sep = topLevelJsonSeparator(lower.slice(open + 1, end === -1 ? undefined : end - 1));
    if (sep) return { message: `syntax error at or near "${sep}"`, code: '42601' };
  }
  for (const m of lower.matchAll(/\b(from|join|lateral)\s*\(\s*(select|values|with)\b/g)) {
    const open = lower.indexOf('(', m.index! + m[1]!.length);
    const end = closingBracket(lower, open);
    if (end === -1) continue;
    const next = /^\s*([a-z_][a-z0-9_]*|[^\sa-z_]|$)/.exec(lower.slice(end))?.[1] ?? '';
    if (next === '' || !/^[a-z_]/.test(next) || NOT_AN_ALIAS.has(next)) {
      return { message: `${m[2] === 'values' ? 'VALUES' : 'subquery'} in FROM must have an alias`, code: '42601' };
    }
  }
  return null;
}

/**
 * In JSON_OBJECT's arguments, outside nested brackets: a `:` (not `::`) or a VALUE between two
 * expressions, the key/value forms of 16; null for json_object(text[]) and (text[], text[]).
 */
function topLevelJsonSeparator(args: string): ':' | 'VALUE' | null {
  let depth = 0;
  let flat = '';
  for (const ch of args) {
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (depth === 0) flat += ch;
    if (depth > 0 || ch === ')' || ch === ']') flat += ' ';
  }
  if (/(?<!:):(?!:)/.test(flat)) return ':';
  return /\bvalue\s+[^,\s:]/.test(flat) ? 'VALUE' : null;
}

/**
 * Why PostgreSQL 15 would reject `sql`, when the tab's newer PostgreSQL would run it; null when 15
 * takes it (as far as this knows). The bodies of a function, a procedure or a DO block it defines
 * are read too: PostgreSQL 15 rejects them when it checks the body or runs it (for PL/pgSQL, at the
 * first call), the tab when it is created, so code that needs a newer server fails either way.
 */
export const pg15Refusal: (sql: string) => Pg15Refusal | null = memoByText((sql) => {
  const own = refusal(sql);
  if (own) return own;
  for (const body of definedCodeBodies(sql)) {
    // Statement by statement: a body holds several, and a check reads one.
    const code = sqlCodeOnly(body);
    let from = 0;
    for (let i = 0; i <= code.length; i++) {
      if (i < code.length && code[i] !== ';') continue;
      const inBody = refusal(body.slice(from, i), true);
      if (inBody) return inBody;
      from = i + 1;
    }
  }
  return null;
});

/** A statement that fails inside the database with `r`'s message and SQLSTATE (aborting a transaction around it). */
export function raising(r: Pg15Refusal): string {
  return raisingText(`${r.message} (PostgreSQL 15, the course's standard, rejects this; the browser's PostgreSQL is newer)`, r.code);
}

/** A statement that fails inside the database with `message` and SQLSTATE `code`. */
export function raisingText(message: string, code: string): string {
  return `DO $eo_pg15$ BEGIN RAISE EXCEPTION USING MESSAGE = ${quoteLiteral(message)}, ERRCODE = '${code}'; END $eo_pg15$`;
}

function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
