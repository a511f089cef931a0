/**
 * A run as the lab shows it: the result plus the scenario's tables as they stood after every
 * step that touched the database, so the inspector can scrub to any step. Snapshots are read by
 * the engine between steps (checkers watch, they never steer): they do not change the schedule,
 * so a lab run has the same traceHash as the same run in the CLI.
 */
import { runScenario, type RunRequest } from './run';
import type { SimDatabase } from '../db/port';
import type { LabRun, TableSnapshot } from './snapshots';

export { changedRows, tablesAt, type LabRun, type TableSnapshot } from './snapshots';

/** Rows in a stable order, with values made plain for postMessage and JSON. */
function plainRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) {
      if (v instanceof Date) out[k] = Number.isFinite(v.getTime()) ? v.toISOString() : 'infinity';
      else if (typeof v === 'bigint') out[k] = v.toString();
      // PGlite returns timestamptz 'infinity' as the number Infinity, which JSON would turn into null.
      else if (typeof v === 'number' && !Number.isFinite(v)) out[k] = Number.isNaN(v) ? 'NaN' : v > 0 ? 'infinity' : '-infinity';
      else out[k] = v;
    }
    return out;
  });
}

async function snapshot(db: SimDatabase, tables: readonly string[]): Promise<TableSnapshot> {
  const out: TableSnapshot = {};
  for (const t of tables) {
    if (!/^[a-z_][a-z0-9_]*$/.test(t)) throw new Error(`not a table name: ${t}`);
    out[t] = plainRows(await db.inspect(`SELECT * FROM ${t} ORDER BY 1`));
  }
  return out;
}

/** The columns of `tables`, in their order, as the database has them now. */
async function columnsOf(db: SimDatabase, tables: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = Object.fromEntries(tables.map((t) => [t, []]));
  if (tables.length === 0) return out;
  const rows = await db.inspect(
    'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY($1::text[]) ORDER BY table_name, ordinal_position',
    [[...tables]],
  );
  for (const r of rows) out[String(r.table_name)]?.push(String(r.column_name));
  return out;
}

/** Run with snapshots of `req.scenario.tables` after every database step. */
export async function runForLab(db: SimDatabase, req: RunRequest): Promise<LabRun> {
  const tables = req.scenario.tables;
  // Every run starts from a reset: the scenario's tables are empty before the first step.
  const snapshots: LabRun['snapshots'] = [{ atEvent: -1, tables: Object.fromEntries(tables.map((t) => [t, []])) }];
  let lastEvent = -1;
  let lastDbEvent = -1;
  let dirty = false;
  /** Every process that has sent a statement: the ones that may hold a transaction open. */
  const talkers = new Set<string>();
  const take = async (at: number) => {
    const open = db.inspectSeesUncommitted ? [...talkers].filter((pid) => db.inTransaction(pid)) : [];
    // Never before the last snapshot (a rollback alone made the tables dirty): they stay in order.
    const atEvent = Math.max(at, snapshots[snapshots.length - 1].atEvent);
    snapshots.push({ atEvent, tables: await snapshot(db, tables), ...(open.length ? { open } : {}) });
    dirty = false;
  };
  const result = await runScenario(db, {
    ...req,
    onEvent: (e) => {
      lastEvent = e.i;
      if (e.type === 'db' || e.type === 'rollback') dirty = true;
      if (e.type === 'db') {
        lastDbEvent = e.i;
        talkers.add(e.actor);
      }
      req.onEvent?.(e);
    },
    afterStep: async (stepIndex) => {
      if (dirty) await take(lastEvent);
      await req.afterStep?.(stepIndex);
    },
    // A crash right after a statement inside a transaction: that statement and the crash are one
    // step, so without this the inspector never showed what the transaction had written before
    // the rollback took it away. Shown at the statement's own event.
    beforeRollback: async (pid) => {
      if (dirty) await take(lastDbEvent);
      await req.beforeRollback?.(pid);
    },
  });
  // Code that did not load ran nothing, and the database was not reset for it: a lesson's own
  // tables (replay-safety's shipments) may not even exist yet in a fresh tab. Say only the error.
  if (result.error) return { result, snapshots, columns: await columnsOf(db, tables) };
  // The tables as the run left them (a rollback at the very end happens after the last step).
  snapshots.push({ atEvent: result.trace.length - 1, tables: await snapshot(db, tables) });
  return { result, snapshots, columns: await columnsOf(db, tables) };
}
