/**
 * What a plain INSERT can claim: the unique keys of the database's tables, whether an INSERT's
 * column list covers one (./overlap.ts), and which values it puts into that key. A plain INSERT
 * stops a second worker only where both put the same key; one whose key is built from a value the
 * worker's check never looked at (an attempt's own id, the worker's name) never meets another's.
 */
import { closingBracket, sqlCodeOnly } from '../../db/sql-words';
import { memoByText } from '../../engine/text-memo';

/** A table's bare lower-case name: schema and quotes dropped. */
export function bare(name: string): string {
  return name.replace(/"/g, '').split('.').pop()!.trim().toLowerCase();
}

/** Each table's unique keys (primary key and equality-only exclusion constraints included), as the sets of their columns, by bare lower-case names. */
export type UniqueKeys = ReadonlyMap<string, readonly (readonly string[])[]>;

const UNIQUE_KEYS_SQL = `SELECT c.relname AS t,
    (SELECT array_agg(a.attname::text) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum = ANY(i.indkey)) AS cols,
    (0 = ANY(i.indkey::int2[]) OR i.indexprs IS NOT NULL
      OR EXISTS (SELECT 1 FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                 WHERE a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
                   AND (a.attgenerated <> '' OR (d.adbin IS NOT NULL AND pg_get_expr(d.adbin, d.adrelid) NOT LIKE 'nextval(%')))) AS filled
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE (i.indisunique OR EXISTS (
      -- An exclusion constraint whose every operator is equality (EXCLUDE USING btree (k WITH =)) is a unique key by another name.
      SELECT 1 FROM pg_constraint x WHERE x.conindid = i.indexrelid AND x.contype = 'x'
        AND NOT EXISTS (SELECT 1 FROM unnest(x.conexclop) AS op(oid) JOIN pg_operator o ON o.oid = op.oid WHERE o.oprname <> '=')))
    AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'sim') AND n.nspname NOT LIKE 'pg\\_%'`;

/** The unique keys of the tables in `db`. */
export async function readUniqueKeys(db: { inspect(text: string): Promise<Record<string, unknown>[]> }): Promise<UniqueKeys> {
  const keys = new Map<string, string[][]>();
  for (const row of await db.inspect(UNIQUE_KEYS_SQL)) {
    const t = String(row.t).toLowerCase();
    // A key over an expression, or over a column the database fills in (a DEFAULT other than a
    // sequence's, a generated column), may meet another worker's row whatever the INSERT lists.
    const cols = row.filled === true ? [] : (Array.isArray(row.cols) ? row.cols : String(row.cols ?? '').replace(/[{}]/g, '').split(',')).map((c) => String(c).toLowerCase());
    keys.set(t, [...(keys.get(t) ?? []), cols]);
  }
  return keys;
}

const INSERT_COLUMNS = /^\s*insert\s+into\s+([\w."]+)\s*(?:as\s+\w+\s*)?\(([^)]*)\)/i;

/**
 * The INSERT's code (sqlCodeOnly), its table and its column list, lower-case, and where the list
 * ends; null when it has none or a quoted name (blanked to a lone q by sqlCodeOnly). Worked out
 * once per text: both questions below ask it of every plain INSERT of every schedule.
 */
const insertColumns = memoByText((sql: string): { code: string; table: string; named: string[]; end: number } | null => {
  const code = sqlCodeOnly(sql);
  const m = INSERT_COLUMNS.exec(code);
  if (!m) return null;
  const named = m[2]!.split(',').map((c) => c.trim().toLowerCase());
  if (named.some((c) => c === '' || c === 'q')) return null;
  return { code, table: bare(m[1]!), named, end: m.index + m[0].length };
});

/**
 * Whether a plain INSERT can fail on a row another worker inserted: some unique key of its table
 * has every column in the INSERT's column list. An INSERT that leaves its key to a sequence (an
 * outbox row, a note) never meets another worker's and claims nothing. Unknown (no column list,
 * a table not found, no keys read): it may.
 */
export function insertMayConflict(sql: string, uniqueKeys: UniqueKeys | null): boolean {
  if (!uniqueKeys) return true;
  const insert = insertColumns(sql);
  if (!insert) return true;
  const keys = uniqueKeys.get(insert.table);
  if (!keys) return true;
  return keys.some((cols) => cols.every((c) => insert.named.includes(c)));
}

/** `list`'s items at its top level: commas inside brackets do not split (strings are blanked already). */
function topLevelItems(list: string, raw = list): string[] {
  const items: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      items.push(raw.slice(from, i));
      from = i + 1;
    }
  }
  items.push(raw.slice(from));
  return items;
}

/**
 * For each unique key an `INSERT … (columns) VALUES (…)` of one row fills from its parameters, the
 * parameter values it puts there, as text: `VALUES ($1 || '/' || $2, …)` into a key on the first
 * column puts both `$1`'s and `$2`'s. Null when that cannot be read (INSERT … SELECT, several rows,
 * no keys read, a key some of whose columns take no parameter): the caller then judges as before.
 */
export function insertedKeyValues(sql: string, uniqueKeys: UniqueKeys | null, params: readonly unknown[], constants: 'unknown' | 'skip' | 'skip-words' = 'unknown'): ReadonlySet<string>[] | null {
  if (!uniqueKeys) return null;
  const insert = insertColumns(sql);
  if (!insert) return null;
  const { code } = insert;
  const values = /^\s*values\s*\(/i.exec(code.slice(insert.end));
  if (!values) return null;
  const open = insert.end + values[0].length - 1;
  const close = closingBracket(code, open);
  if (close < 0 || /^\s*,/.test(code.slice(close))) return null;
  const items = topLevelItems(code.slice(open + 1, close - 1));
  // The same items as written, string literals and all (sqlCodeOnly keeps every position).
  const written = topLevelItems(code.slice(open + 1, close - 1), sql.slice(open + 1, close - 1));
  if (items.length !== insert.named.length) return null;
  const out: Set<string>[] = [];
  for (const cols of uniqueKeys.get(insert.table) ?? []) {
    if (!cols.length || !cols.every((c) => insert.named.includes(c))) continue;
    const key = new Set<string>();
    for (const col of cols) {
      const refs = [...items[insert.named.indexOf(col)]!.matchAll(/\$(\d+)/g)].map((m) => params[Number(m[1]) - 1]);
      // A column filled by a constant or a function (now(), a literal) says nothing of its own;
      // with `constants: 'skip'` a literal is every worker's alike, and the key is the rest.
      const item = items[insert.named.indexOf(col)]!;
      if (constants === 'skip' && !refs.length && !/\(/.test(item)) continue;
      // 'skip-words': only a literal that names a kind ('receipt', 2), not a token spliced into the text ('tok-7f3a').
      if (constants === 'skip-words' && !refs.length && /^\s*(?:'[a-z_ .-]*'|\d{1,3})\s*$/i.test(written[insert.named.indexOf(col)]!)) continue;
      if (!refs.length || refs.some((v) => v === null || v === undefined || typeof v === 'object')) return null;
      for (const v of refs) key.add(String(v));
    }
    out.push(key);
  }
  return out.length ? out : null;
}
