/**
 * Pure helpers for the lab's views: the tables and the ledger as they stood at a trace event, and
 * the formatting of simulated times, keys and cell values. Types only from simulations/, so these
 * views never pull the engine or PGlite into the page bundle (lab-run.ts imports the engine;
 * simulations/snapshots.ts, used here, does not).
 */
import { changedRows, openTransactionsAt, tablesAt, type LabRun } from '@/simulations/run/snapshots';
import { SIM_EPOCH_MS } from '@/simulations/engine/sim-time';

export { changedRows, openTransactionsAt, SIM_EPOCH_MS, tablesAt };
import type { Ledger } from '@/simulations/providers/index';
import type { RunResult } from '@/simulations/run/run';
import type { TraceEvent } from '@/simulations/engine/types';
import { formatSimMoment, formatSimTime, simClockTime } from '@/simulations/engine/sim-time';

/** What happened to a table at one event: rows added or changed (by index now), rows removed. */
export interface TableChange {
  /** Index of each new or changed row in the table as it stands now. */
  rows: Map<number, 'new' | 'changed'>;
  /** How many rows the event removed. */
  removed: number;
}

/**
 * Like changedRows, telling new rows from changed ones by the first column (the snapshot is
 * `ORDER BY 1`, which in every lesson table is its key).
 */
export function tableChange(run: LabRun, table: string, i: number): TableChange {
  const now = tablesAt(run, i)[table] ?? [];
  const before = i > 0 ? (tablesAt(run, i - 1)[table] ?? []) : [];
  const keyOf = (r: Record<string, unknown>) => JSON.stringify(Object.values(r)[0] ?? null);
  const beforeKeys = new Set(before.map(keyOf));
  const nowKeys = new Set(now.map(keyOf));
  const rows = new Map<number, 'new' | 'changed'>();
  for (const k of changedRows(run, table, i)) rows.set(k, beforeKeys.has(keyOf(now[k])) ? 'changed' : 'new');
  const removed = before.filter((r) => !nowKeys.has(keyOf(r))).length;
  return { rows, removed };
}

/** The ledger up to and including trace event `i`: every entry's `step` is its trace index. */
export function ledgerAt(ledger: Ledger, i: number): Ledger {
  const upTo = <T extends { step: number }>(xs: readonly T[]) => xs.filter((x) => x.step <= i);
  return {
    emails: upTo(ledger.emails),
    charges: upTo(ledger.charges),
    replays: upTo(ledger.replays),
    refusals: upTo(ledger.refusals),
    published: upTo(ledger.published),
    credits: upTo(ledger.credits),
    itemRefusals: upTo(ledger.itemRefusals),
  };
}

export { formatSimMoment, formatSimTime, simClockTime };

/** A long key (hex digest, UUID) cut to its first 8 characters; short values stay whole. */
export function shortKey(key: string, length = 8): string {
  return key.length > length + 4 ? `${key.slice(0, length)}…` : key;
}

/** How a cell value reads in the inspector. */
export interface CellText {
  text: string;
  /** The full value, when `text` is shortened or reformatted. */
  title?: string;
  /** `text` is `title` cut short: a screen reader is given `title` instead (a key or time reads well shortened). */
  clipped?: true;
  kind: 'null' | 'key' | 'time' | 'json' | 'number' | 'text';
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const LONG_KEY = /^(?:[0-9a-f]{24,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** A timestamp as simulated time since the run started: "+60.0 s" (or "−5.0 s" before it). */
export function formatTimestamp(iso: string): string {
  const ms = Date.parse(iso) - SIM_EPOCH_MS;
  return ms < 0 ? `−${formatSimTime(-ms)}` : `+${formatSimTime(ms)}`;
}

/** A table cell: keys shortened, timestamps relative to the run's start, jsonb as compact JSON. */
export function formatCell(value: unknown): CellText {
  if (value === null || value === undefined) return { text: 'null', kind: 'null' };
  if (typeof value === 'number' || typeof value === 'bigint') return { text: String(value), kind: 'number' };
  if (typeof value === 'boolean') return { text: String(value), kind: 'text' };
  if (typeof value === 'string') {
    if (value === 'infinity') return { text: '∞ (never expires)', title: 'infinity', kind: 'time' };
    if (ISO_TIME.test(value) && Number.isFinite(Date.parse(value))) return { text: formatTimestamp(value), title: value, kind: 'time' };
    if (LONG_KEY.test(value)) return { text: shortKey(value), title: value, kind: 'key' };
    return clipped(value, 'text');
  }
  return clipped(JSON.stringify(value), 'json');
}

/** Most characters a cell shows; a longer value is cut with an ellipsis, shown whole on hover and to a screen reader. */
export const CELL_MAX_CHARS = 60;

function clipped(text: string, kind: 'text' | 'json'): CellText {
  // Cut by code point, so an emoji or other astral character is never split in half.
  const chars = Array.from(text);
  return chars.length > CELL_MAX_CHARS ? { text: `${chars.slice(0, CELL_MAX_CHARS - 1).join('')}…`, title: text, kind, clipped: true } : { text, kind };
}

/** What a timeline mark shows; the legend lists the same kinds. */
export type MarkKind = 'queue' | 'db' | 'call' | 'reply' | 'process' | 'crash' | 'lost' | 'redeliver' | 'rollback' | 'error';

/** The mark kind of a trace event. */
export function markKind(e: TraceEvent): MarkKind {
  if (e.type === 'crash' || e.fault === 'crash') return 'crash';
  if (e.fault === 'lose-response' || e.fault === 'lose-request' || e.fault === 'slow-response' || e.type === 'timeout') return 'lost';
  if (e.type === 'redeliver' || e.fault === 'duplicate-delivery') return 'redeliver';
  if (e.type === 'rollback') return 'rollback';
  if (e.type === 'error' || e.type === 'db-error' || e.type === 'dead-letter') return 'error';
  if (e.type === 'db') return 'db';
  if (e.type === 'call') return 'call';
  if (e.type === 'reply') return 'reply';
  if (e.type === 'receive' || e.type === 'ack' || e.type === 'publish') return 'queue';
  return 'process';
}

/** A stretch of the run during which a process was down: from its crash to its restart. */
export interface DownSpan {
  actor: string;
  /** Trace index of the crash. */
  from: number;
  /** Trace index of the restart, or of the last event shown when it has not restarted (yet). */
  to: number;
  restarted: boolean;
}

/**
 * When each process was down, among the events up to `upTo`: every crash up to its process's next
 * start or restart. A process that has not come back by `upTo` is down to there.
 */
export function downSpans(trace: readonly TraceEvent[], upTo: number): DownSpan[] {
  const spans: DownSpan[] = [];
  const open = new Map<string, number>();
  const last = Math.min(upTo, trace.length - 1);
  for (let i = 0; i <= last; i++) {
    const e = trace[i];
    if (e.type === 'crash' && !open.has(e.actor)) open.set(e.actor, i);
    else if ((e.type === 'restart' || e.type === 'start') && open.has(e.actor)) {
      spans.push({ actor: e.actor, from: open.get(e.actor)!, to: i, restarted: true });
      open.delete(e.actor);
    }
  }
  for (const [actor, from] of open) spans.push({ actor, from, to: last, restarted: false });
  return spans.sort((a, b) => a.from - b.from);
}

/** True for events that are a fault being applied or its visible consequence. */
export function isFaultEvent(e: TraceEvent): boolean {
  return e.fault !== undefined || e.type === 'crash' || e.type === 'redeliver' || e.type === 'timeout';
}

/** A short text label for a fault or trouble event, for the event log (never colour alone). */
export function faultLabel(e: TraceEvent): string | null {
  if (e.fault) return `fault: ${e.fault}`;
  if (e.type === 'crash') return 'fault: crash';
  if (e.type === 'redeliver') return 'redelivery';
  if (e.type === 'timeout') return 'timeout';
  if (e.type === 'dead-letter') return 'dead letter';
  if (e.type === 'rollback') return 'rollback';
  if (e.type === 'error' || e.type === 'db-error') return 'error';
  return null;
}

/**
 * Where fault `i` of a run's plan took effect, as the page counts events (1-based), or null when it
 * never did (its step never came, or its worker was already down).
 */
export function faultEventNumber(result: Pick<RunResult, 'faultEvents'> | undefined, i: number): number | null {
  const at = result?.faultEvents?.[i];
  return at === undefined || at === null ? null : at + 1;
}
