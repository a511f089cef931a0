/**
 * Answers that only a contended lock gives, and whether the code obeys them.
 *
 * PGlite runs one transaction at a time, so inside a transaction a `pg_try_advisory_xact_lock`
 * always answers true and a `FOR UPDATE SKIP LOCKED` read never skips a row: the other process
 * waits for the COMMIT instead of holding the lock at the same time. On PostgreSQL the second of
 * two overlapping transactions gets false, or no rows. Whether the code obeys that answer decides
 * whether the lock keeps anybody out, and the tab cannot see it from the answers it gives.
 *
 * So the engine asks the code: a probe run replays the same schedule (same seed, same choices)
 * and gives one such statement the contended answer (every true in its rows false for a try-lock
 * in the select list; no rows for SKIP LOCKED or a try-lock in WHERE). If what the process then
 * does (its statements, calls, acks, up to its next message, transaction or lock, sleep or end) is exactly what it did
 * with the granted answer, or it still calls a provider or publishes in that window, the answer
 * did not keep it from acting: the lock is *ignored*, and the rules that
 * count locks (lessons/kit/held-locks.ts, the relay's rule in lessons/kit/outbox-world.ts,
 * lessons/kit/overlap.ts) count it as none. On PostgreSQL the answers are real and no probe runs.
 */
import { sqlCodeOnly, transactionBoundary } from '../db/sql-words';
import type { TraceEvent } from './types';

/** How a contended lock answers: `answer` (a try-lock in the select list: false), `filter` (SKIP LOCKED, a try-lock in WHERE: no rows). */
export type ContendedAnswer = 'answer' | 'filter';

const TRY_XACT = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?pg_try_advisory_xact_lock(?:_shared)?\s*\(/i;
const TRY_XACT_IN_WHERE = /\bwhere\b[\s\S]*\bpg_try_advisory_xact_lock(?:_shared)?\s*\(/i;
const SKIP_LOCKED = /\bskip\s+locked\b/i;
const MENTIONS = /pg_try_advisory_xact_lock|skip\s+locked/i;

/** How `text`, run inside a transaction, would answer if another process held what it locks; null when PGlite's answer is the same. */
export function contendedAnswer(text: string): ContendedAnswer | null {
  if (!MENTIONS.test(text)) return null;
  const code = sqlCodeOnly(text);
  if (SKIP_LOCKED.test(code) || TRY_XACT_IN_WHERE.test(code)) return 'filter';
  return TRY_XACT.test(code) ? 'answer' : null;
}

/** Whether learner source may run such a statement (a cheap test before any probe). */
export function mayMeetContention(code: string): boolean {
  return MENTIONS.test(code);
}

/** `rows` as the contended lock would have answered them. */
export function contendedRows(kind: ContendedAnswer, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  if (kind === 'filter') return [];
  return rows.map((row) => {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) copy[k] = v === true ? false : v;
    return copy;
  });
}

/** Whether the probe found the answer of the statement `e` records ignored (the rules count its lock as none). */
export function answerIgnored(e: TraceEvent): boolean {
  return (e.data as { answerIgnored?: unknown } | undefined)?.answerIgnored === true;
}

/** Whether `at`'s process ran, before it, a statement whose ignored answer the verdict should name. */
export function ignoredAnswerBefore(trace: readonly TraceEvent[], at: TraceEvent): boolean {
  return trace.some((e) => e.i < at.i && e.actor === at.actor && answerIgnored(e));
}

/** A statement that may be answered contended: `pid`'s `seq`-th such statement of the run. */
export interface ContentionPoint {
  pid: string;
  seq: number;
}

/** What a run is told about contention (RunOptions.contention). */
export interface ContentionOptions {
  /** Answer this statement as a contended lock would (a probe run). */
  contend?: ContentionPoint;
  /** `${pid}\n${sql}`: statements whose contended answer the probe found ignored; their events say `answerIgnored: true`. */
  ignored?: readonly string[];
}

/** The key of a statement in `ContentionOptions.ignored`. */
export function ignoredKey(pid: string, sql: string): string {
  return `${pid}\n${sql}`;
}

/** A run's bookkeeping of contendable statements, per process. */
export class Contention {
  private readonly seqs = new Map<string, number>();
  private readonly ignored: ReadonlySet<string>;

  constructor(private readonly options: ContentionOptions = {}) {
    this.ignored = new Set(options.ignored ?? []);
  }

  /**
   * A contendable statement of `pid` answered `rows` inside a transaction: stamps its event with
   * its number (`contendable`) and, when the probe found its answer ignored, `answerIgnored`;
   * returns the rows the code gets.
   */
  answer(pid: string, sql: string, kind: ContendedAnswer, rows: Record<string, unknown>[], event: TraceEvent): Record<string, unknown>[] {
    const seq = (this.seqs.get(pid) ?? 0) + 1;
    this.seqs.set(pid, seq);
    const data = event.data as Record<string, unknown>;
    data.contendable = seq;
    if (this.ignored.has(ignoredKey(pid, sql))) data.answerIgnored = true;
    const point = this.options.contend;
    return point && point.pid === pid && point.seq === seq ? contendedRows(kind, rows) : rows;
  }
}

/** The statements of a run worth a probe: contendable, answered with something to contend (a true, or rows), the first of each text per process. */
export function probePoints(trace: readonly TraceEvent[]): { point: ContentionPoint; sql: string; at: number }[] {
  const seen = new Set<string>();
  const out: { point: ContentionPoint; sql: string; at: number }[] = [];
  for (const e of trace) {
    if (e.type !== 'db') continue;
    const data = e.data as { sql?: unknown; rows?: unknown; contendable?: unknown } | undefined;
    if (typeof data?.contendable !== 'number') continue;
    const sql = String(data.sql ?? '');
    const key = ignoredKey(e.actor, sql);
    if (seen.has(key)) continue;
    const rows = Array.isArray(data.rows) ? (data.rows as Record<string, unknown>[]) : [];
    const kind = contendedAnswer(sql);
    const differs = kind === 'filter' ? rows.length > 0 : rows.some((r) => Object.values(r).some((v) => v === true));
    if (!differs) continue;
    seen.add(key);
    out.push({ point: { pid: e.actor, seq: data.contendable }, sql, at: e.i });
  }
  return out;
}

/** Whether `e` is part of what `pid` does that another process could see (its logs aside). */
function isConduct(e: TraceEvent, pid: string): boolean {
  return (e.actor === pid || e.target === pid) && e.type !== 'log';
}

/** A statement that takes a lock: what the process does after it rests on that lock, not on the contended one. */
const TAKES_LOCK = /\bpg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?\s*\(|\bfor\s+(?:no\s+key\s+)?update\b|\bfor\s+(?:key\s+)?share\b|^\s*lock\b/i;

/** Where `pid` is done with what the statement decided: its next message, transaction or lock, sleep, end, crash or error. */
function closesWindow(e: TraceEvent, pid: string): boolean {
  if (e.type === 'receive') return e.target === pid;
  if (e.type === 'db' && e.actor === pid) {
    const sql = String((e.data as { sql?: unknown } | undefined)?.sql ?? '');
    return transactionBoundary(sql) === 'begin' || TAKES_LOCK.test(sqlCodeOnly(sql));
  }
  return e.actor === pid && (e.type === 'ack' || e.type === 'sleep' || e.type === 'finish' || e.type === 'crash' || e.type === 'restart' || e.type === 'error');
}

/** At most this many events of the process are compared after the statement. */
const WINDOW_EVENTS = 60;

/**
 * Follows a probe run's events against the original run's and decides, once `pid`'s window in the
 * probe closed, whether the contended answer was obeyed: the process did something else, and
 * nothing a lock is for (no provider call, no publish) until its window closed. A relay that only
 * takes a smaller batch when the answer is false, or a worker that only logs it, still acts.
 */
export class ConductComparison {
  private readonly expected: string[];
  private cursor = 0;
  private differs = false;
  private acted = false;
  private seen = 0;
  /** null while undecided; true when the contended answer kept the process from acting. */
  obeyed: boolean | null = null;

  constructor(
    original: readonly TraceEvent[],
    private readonly point: ContentionPoint,
    /** The probed statement's position in both traces: the runs are the same up to it. */
    private readonly at: number,
  ) {
    this.expected = [];
    for (let i = at + 1; i < original.length && this.expected.length < WINDOW_EVENTS; i++) {
      const e = original[i];
      if (!isConduct(e, point.pid)) continue;
      this.expected.push(signature(e));
      if (closesWindow(e, point.pid)) break;
    }
  }

  /** Take in the probe run's next event. */
  see(e: TraceEvent): void {
    if (this.obeyed !== null || e.i <= this.at || !isConduct(e, this.point.pid)) return;
    this.seen++;
    if (e.actor === this.point.pid && (e.type === 'call' || e.type === 'publish')) this.acted = true;
    if (!this.differs) {
      if (this.cursor >= this.expected.length || signature(e) !== this.expected[this.cursor]) this.differs = true;
      else this.cursor++;
    }
    if (!this.differs && this.cursor === this.expected.length && this.expected.length > 0 && (closesWindow(e, this.point.pid) || this.cursor >= WINDOW_EVENTS)) {
      this.obeyed = false;
      return;
    }
    if (closesWindow(e, this.point.pid) || this.seen >= WINDOW_EVENTS) this.obeyed = this.differs && !this.acted;
  }

  /** The probe run ended: undecided means its window ran to the end of the run. */
  finish(): boolean {
    if (this.obeyed === null) this.obeyed = (this.differs || this.cursor < this.expected.length) && !this.acted;
    return this.obeyed;
  }
}

function signature(e: TraceEvent): string {
  return `${e.type}\n${e.text}`;
}
