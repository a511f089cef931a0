/**
 * The learner's own SQL functions, seen through. A check made, a lock taken or a batch claimed
 * inside `CREATE FUNCTION claim_batch(…)` is what the statement calling it does: the rules that
 * read statements (./overlap.ts, ./held-locks.ts, the relay's rule in ./relay-locks.ts) judge
 * `SELECT * FROM claim_batch($1)` with the function's body beside it.
 *
 * The bodies come from the database after the run (`pg_proc`: SQL and PL/pgSQL functions and
 * procedures outside the system schemas and `sim`), read only when the run created one. A view the
 * run created is seen through the same way: a statement reading it reads its query (`pg_views`).
 */
import type { TraceEvent } from '../../engine/types';
import type { SimDatabase } from '../../db/port';
import { sqlCodeOnly } from '../../db/sql-words';
import { asWritten } from '../../db/advisory-locks';

const CREATES = /\bcreate\b[\s\S]*\b(?:function|procedure)\b/i;
/** How deep a function's calls of other functions of the learner's are followed. */
const DEPTH = 3;

const FUNCTIONS_SQL = `SELECT p.proname AS name, p.prosrc AS body
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'sim') AND n.nspname NOT LIKE 'pg\\_%' AND l.lanname IN ('sql', 'plpgsql')`;

const sqlOf = (e: TraceEvent) => String((e.data as { sql?: unknown } | undefined)?.sql ?? '');

/** What joins a statement and the bodies of the functions it calls (`withBodies`). */
export const BODIES = '\n;\n';

/** `sql` with the body of every function of `functions` it calls appended (and theirs, `DEPTH` deep). */
export function withBodies(sql: string, functions: ReadonlyMap<string, string>, depth = DEPTH): string {
  if (depth === 0 || functions.size === 0) return sql;
  const code = sqlCodeOnly(sql).toLowerCase();
  const bodies: string[] = [];
  for (const m of code.matchAll(/(?<![\w$])([a-z_][a-z0-9_$]*)\s*\(/g)) {
    const body = functions.get(m[1]!);
    if (body !== undefined && !bodies.includes(body)) bodies.push(body);
  }
  if (!bodies.length) return sql;
  return [sql, ...bodies.map((b) => withBodies(b, functions, depth - 1))].join(BODIES);
}

/**
 * `trace` as the rules should read it: each statement that calls a function the run's code
 * created carries that function's body after its own text. The same trace when it created none.
 */
export async function withLearnerFunctions(trace: readonly TraceEvent[], db: Pick<SimDatabase, 'inspect'>): Promise<readonly TraceEvent[]> {
  const creates = trace.some((e) => e.type === 'db' && CREATES.test(sqlOf(e)));
  const createsView = trace.some((e) => e.type === 'db' && CREATES_VIEW.test(sqlOf(e)));
  if (!creates && !createsView) return trace;
  const functions = new Map<string, string>();
  // A body's advisory-lock calls as written (the tab makes them as the calling process: ../../db/advisory-locks.ts).
  if (creates) for (const row of await db.inspect(FUNCTIONS_SQL)) functions.set(String(row.name).toLowerCase(), asWritten(String(row.body ?? '')));
  const views = new Map<string, string>();
  if (createsView) for (const row of await db.inspect(VIEWS_SQL)) views.set(String(row.name).toLowerCase(), String(row.body ?? '').trim().replace(/;$/, ''));
  if (!functions.size && !views.size) return trace;
  return trace.map((e) => {
    if (e.type !== 'db' && e.type !== 'db-error') return e;
    const sql = sqlOf(e);
    if (CREATES.test(sql) || CREATES_VIEW.test(sql)) return e;
    const seen = withViews(withBodies(sql, functions), views);
    return seen === sql ? e : { ...e, data: { ...(e.data as object), sql: seen } };
  });
}

const CREATES_VIEW = /\bcreate\b[\s\S]*\bview\b/i;

/** The learner's views: each one's query, as PostgreSQL keeps it. */
const VIEWS_SQL = `SELECT c.relname AS name, pg_get_viewdef(c.oid) AS body
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind = 'v' AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'sim') AND n.nspname NOT LIKE 'pg\\_%'`;

/**
 * `sql` with each view of `views` it reads (`FROM pending`, `JOIN pending p`) written as its query
 * (`FROM (SELECT … FROM outbox WHERE …) AS pending`): what it reads, and what a FOR UPDATE on it
 * locks, are the tables underneath, as on PostgreSQL.
 */
export function withViews(sql: string, views: ReadonlyMap<string, string>): string {
  if (views.size === 0) return sql;
  const code = sqlCodeOnly(sql);
  let out = '';
  let from = 0;
  for (const m of code.matchAll(/\b(from|join)(\s+(?:only\s+)?)(?:public\s*\.\s*)?([a-z_][\w$]*)\b/gi)) {
    const view = views.get(m[3]!.toLowerCase());
    if (view === undefined) continue;
    const start = m.index! + m[1]!.length + m[2]!.length;
    out += sql.slice(from, start) + `(${view}) AS ${m[3]}`;
    from = m.index! + m[0].length;
  }
  return from === 0 ? sql : out + sql.slice(from);
}
