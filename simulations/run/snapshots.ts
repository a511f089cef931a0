/**
 * Table snapshots of a lab run and how to read them, with no engine code: the page's views import
 * this without pulling the scheduler, sucrase or PGlite into the browser bundle.
 */
import type { RunResult } from './run';


/** Rows of each inspected table. */
export type TableSnapshot = Record<string, Record<string, unknown>[]>;

/** A lab run: the result and the table snapshots. */
export interface LabRun {
  result: RunResult;
  /** `snapshots[k]` is the tables after trace event `atEvent[k]`; the first is the empty start. */
  snapshots: {
    atEvent: number;
    tables: TableSnapshot;
    /**
     * Processes with a transaction open at that moment: the tables include their uncommitted
     * changes (the lab's PostgreSQL is one connection, and the inspector reads on it).
     */
    open?: string[];
  }[];
  /** Each shown table's columns in order, so an empty table can still say what it holds. */
  columns?: Record<string, string[]>;
}

/** The tables as they stood at trace event `i`. */
export function tablesAt(run: LabRun, i: number): TableSnapshot {
  let found = run.snapshots[0]?.tables ?? {};
  for (const s of run.snapshots) {
    if (s.atEvent <= i) found = s.tables;
    else break;
  }
  return found;
}

/** The processes whose open transaction's uncommitted changes the tables at event `i` include. */
export function openTransactionsAt(run: LabRun, i: number): string[] {
  let found: string[] = [];
  for (const s of run.snapshots) {
    if (s.atEvent <= i) found = s.open ?? [];
    else break;
  }
  return found;
}

/** Rows of `table` at event `i` that differ from the event before (new or changed), by index. */
export function changedRows(run: LabRun, table: string, i: number): Set<number> {
  const now = tablesAt(run, i)[table] ?? [];
  const before = i > 0 ? (tablesAt(run, i - 1)[table] ?? []) : [];
  const seen = new Set(before.map((r) => JSON.stringify(r)));
  const changed = new Set<number>();
  now.forEach((r, k) => {
    if (!seen.has(JSON.stringify(r))) changed.add(k);
  });
  return changed;
}
