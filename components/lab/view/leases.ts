/**
 * Claims and their leases as they stood at one trace event, read from the lesson's own tables:
 * a row of a table with a lease column (`lease_until`, `locked_until`, `expires_at`, …) is a
 * claim, and its time left is the lease minus the simulated time of the event. Only what the
 * tables hold: a lesson whose tables have no lease column has no claims to show.
 *
 * "Expired" follows the claim's own SQL (lib/consumer.ts takes a row over when
 * `lease_until < now()`): at the very instant the lease ends it still holds, with 0 s left.
 */
import { SIM_EPOCH_MS } from '@/simulations/engine/sim-time';
import { tablesAt, type LabRun } from '@/simulations/run/snapshots';

/** Column names that hold when a claim's lease ends. */
export const LEASE_COLUMN = /^(lease|lease_until|lease_expires(_at)?|locked_until|lock_expires(_at)?|expires|expires_at)$/i;

export type LeaseStatus =
  /** The lease runs: `leftMs` ≥ 0. */
  | 'held'
  /** The lease ended `-leftMs` ms before the event: another claim may take the row over. */
  | 'expired'
  /** `infinity`: no one can ever take it over. */
  | 'never'
  /** The row is done: its lease no longer guards anything (a done row is never taken over). */
  | 'done'
  /** The lease column is null. */
  | 'none';

export interface Claim {
  table: string;
  /** The row's key: its first column's value, as text. */
  key: string;
  /** The row's `state` column, when it has one. */
  state?: string;
  /** The lease column's name and raw value. */
  column: string;
  until: string | null;
  status: LeaseStatus;
  /** Simulated ms from the event to the lease's end (negative once it has passed); null for `never` and `none`. */
  leftMs: number | null;
}

/** The lease column of a table's rows, if it has one. */
function leaseColumn(run: LabRun, table: string, rows: readonly Record<string, unknown>[]): string | null {
  const columns = run.columns?.[table]?.length ? run.columns[table]! : Object.keys(rows[0] ?? {});
  return columns.find((c) => LEASE_COLUMN.test(c)) ?? null;
}

/** Whether any table of the run holds a claim with a lease at any point: if not, there is nothing to show. */
export function hasClaims(run: LabRun): boolean {
  return run.snapshots.some((s) => Object.entries(s.tables).some(([table, rows]) => rows.length > 0 && leaseColumn(run, table, rows) !== null));
}

/** Simulated ms since the run started, of an ISO timestamp; NaN when it is not one. */
function simMs(value: string): number {
  return Date.parse(value) - SIM_EPOCH_MS;
}

/** Every claim in the run's tables as they stood after trace event `i`, with its lease measured from that event's time. */
export function claimsAt(run: LabRun, i: number): Claim[] {
  if (i < 0) return [];
  const trace = run.result.trace;
  const now = trace[Math.min(i, trace.length - 1)]?.t ?? 0;
  const out: Claim[] = [];
  for (const [table, rows] of Object.entries(tablesAt(run, i))) {
    const column = leaseColumn(run, table, rows);
    if (!column) continue;
    for (const row of rows) {
      const raw = row[column];
      const until = raw === null || raw === undefined ? null : String(raw);
      const state = typeof row.state === 'string' ? row.state : undefined;
      const key = String(Object.values(row)[0] ?? '');
      let status: LeaseStatus;
      let leftMs: number | null = null;
      if (until === null) status = 'none';
      else if (until === 'infinity') status = 'never';
      else {
        const end = simMs(until);
        if (!Number.isFinite(end)) continue;
        leftMs = end - now;
        status = leftMs >= 0 ? 'held' : 'expired';
      }
      if (state === 'done') status = 'done';
      out.push({ table, key, ...(state !== undefined ? { state } : {}), column, until, status, leftMs });
    }
  }
  return out;
}

/** What a claim's lease reads as, under the heading "Leases": "30.0 s left", "expired 30.0 s ago". */
export function describeLease(c: Claim, formatMs: (ms: number) => string): string {
  switch (c.status) {
    case 'held':
      return `${formatMs(c.leftMs!)} left`;
    case 'expired':
      return `expired ${formatMs(-c.leftMs!)} ago`;
    case 'never':
      return 'never expires';
    case 'done':
      return 'done (never taken over again)';
    case 'none':
      return 'no lease';
  }
}
