/**
 * What each EXECUTE in a run ran: the statements prepared with PREPARE, by name. A checker that
 * judges statements by what they do judges an EXECUTE as the statement behind it.
 *
 * The run's own PREPAREs are in its trace. In the tab every process shares one session, which also
 * keeps what an earlier run prepared (code that prepares once per connection finds it there and
 * does not prepare again), so the database's `pg_prepared_statements` is read too. On PostgreSQL
 * that read sees only the checker's own connection, and each process's PREPAREs are in the trace.
 */
import type { TraceEvent } from '../../engine/types';
import type { SimDatabase } from '../../db/port';
import { executedName, preparedStatement } from '../../db/sql-words';

const sqlOf = (e: TraceEvent) => String((e.data as { sql?: unknown } | undefined)?.sql ?? '');

/** The prepared statements an EXECUTE of `trace` may have run, by name; empty when the trace runs no EXECUTE. */
export async function preparedStatements(trace: readonly TraceEvent[], db: Pick<SimDatabase, 'inspect'>): Promise<Map<string, string>> {
  const prepared = new Map<string, string>();
  if (!trace.some((e) => e.type === 'db' && executedName(sqlOf(e)) !== null)) return prepared;
  for (const row of await db.inspect('SELECT name, statement FROM pg_prepared_statements')) {
    const p = preparedStatement(String(row.statement ?? ''));
    if (p) prepared.set(String(row.name).toLowerCase(), p.text);
  }
  for (const e of trace) {
    if (e.type !== 'db') continue;
    const p = preparedStatement(sqlOf(e));
    if (p) prepared.set(p.name, p.text);
  }
  return prepared;
}
