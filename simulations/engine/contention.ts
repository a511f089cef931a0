/**
 * Answers that only a contended lock gives, and whether the code obeys them.
 *
 * PGlite runs one transaction at a time, so inside a transaction a `pg_try_advisory_xact_lock`
 * always answers true, a `FOR UPDATE SKIP LOCKED` read never skips a row and a `FOR UPDATE NOWAIT`
 * never fails: the other process
 * waits for the COMMIT instead of holding the lock at the same time. On PostgreSQL the second of
 * two overlapping transactions gets false, or no rows. Whether the code obeys that answer decides
 * whether the lock keeps anybody out, and the tab cannot see it from the answers it gives.
 *
 * So the engine asks the code: a probe run replays the same schedule (same seed, same choices)
 * and gives one such statement the contended answer (every true in its rows false for a try-lock
 * in the select list; no rows for SKIP LOCKED or a try-lock in WHERE; for FOR UPDATE NOWAIT,
 * which on PostgreSQL waits for nobody, the error 55P03 raised inside the database). If what the process then
 * does (its statements, calls, acks, up to its next message, transaction or lock, sleep or end) is exactly what it did
 * with the granted answer, or it still calls a provider or publishes in that window, the answer
 * did not keep it from acting: the lock is *ignored*, and the rules that
 * count locks (lessons/kit/held-locks.ts, the relay's rule in lessons/kit/relay-locks.ts,
 * lessons/kit/overlap.ts) count it as none. On PostgreSQL the answers are real and no probe runs.
 */
import { sqlCodeOnly, transactionBoundary } from '../db/sql-words';
import type { TraceEvent } from './types';

/**
 * How a contended lock answers: `answer` (a try-lock in the select list: false), `filter` (SKIP
 * LOCKED, a try-lock in WHERE: no rows), `error` (FOR UPDATE/SHARE NOWAIT: 55P03, lock not
 * available), `serialization` (the COMMIT of a SERIALIZABLE transaction: 40001, PostgreSQL's answer
 * to the second of two transactions that read what the other wrote), `unique` (a plain INSERT in
 * a transaction whose code may catch its failure under a SAVEPOINT: 23505, the answer PostgreSQL
 * gives the second of two workers inserting one key, once the first commits).
 */
export type ContendedAnswer = 'answer' | 'filter' | 'error' | 'serialization' | 'unique';

const TRY_XACT = /(?<![\w."$])(?:pg_catalog\s*\.\s*)?pg_try_advisory_xact_lock(?:_shared)?\s*\(/i;
const TRY_XACT_IN_WHERE = /\bwhere\b[\s\S]*\bpg_try_advisory_xact_lock(?:_shared)?\s*\(/i;
const SKIP_LOCKED = /\bskip\s+locked\b/i;
const NOWAIT = /\bfor\s+(?:no\s+key\s+update|update|key\s+share|share)\b[\s\S]*\bnowait\b/i;
const MENTIONS = /pg_try_advisory_xact_lock|skip\s+locked|\bnowait\b/i;

/** The SQLSTATE and message PostgreSQL answers a NOWAIT lock that another transaction holds with, for the table `text` reads. */
export function lockNotAvailable(text: string): { code: string; message: string } {
  const table = /\bfrom\s+(?:only\s+)?([\w."]+)/i.exec(sqlCodeOnly(text))?.[1]?.replace(/"/g, '').split('.').pop() ?? 'the table';
  return { code: '55P03', message: `could not obtain lock on row in relation "${table}"` };
}

/** How `text`, run inside a transaction, would answer if another process held what it locks; null when PGlite's answer is the same. */
export function contendedAnswer(text: string): ContendedAnswer | null {
  if (!MENTIONS.test(text)) return null;
  const code = sqlCodeOnly(text);
  if (SKIP_LOCKED.test(code) || TRY_XACT_IN_WHERE.test(code)) return 'filter';
  if (TRY_XACT.test(code)) return 'answer';
  return NOWAIT.test(code) ? 'error' : null;
}

/** Whether learner source may run such a statement (a cheap test before any probe). */
export function mayMeetContention(code: string): boolean {
  return MENTIONS.test(code) || mayRunSerializable(code) || mayCatchDuplicateKey(code);
}

/**
 * Whether learner source may go on inside a transaction after one of its INSERTs failed (it sets a
 * SAVEPOINT): a probe then fails its plain INSERTs with 23505 and asks whether it still acts.
 * Without one, a failed INSERT aborts the transaction, and the tab's second worker meets the
 * failure itself.
 */
export function mayCatchDuplicateKey(code: string): boolean {
  return /\bsavepoint\b/i.test(code);
}

/** Whether `text` is an INSERT with no ON CONFLICT clause: one a unique key fails rather than skips. */
export function plainInsert(text: string): boolean {
  const code = sqlCodeOnly(text);
  return /^\s*insert\b/i.test(code) && !/\bon\s+conflict\b/i.test(code);
}

/** The name a `SAVEPOINT name` statement sets, as written (quoted or not); null for any other statement. */
export function savepointSet(text: string): string | null {
  return /^\s*savepoint\s+("(?:[^"]|"")+"|[a-z_][\w$]*)\s*;?\s*$/i.exec(text)?.[1] ?? null;
}

/** PostgreSQL's answer to the second of two INSERTs of one key, for the table `text` inserts into. */
export function duplicateKey(text: string): { code: string; message: string } {
  const table = /^\s*insert\s+into\s+(?:only\s+)?([\w."]+)/i.exec(sqlCodeOnly(text))?.[1]?.replace(/"/g, '').split('.').pop() ?? 'the_table';
  return { code: '23505', message: `duplicate key value violates unique constraint "${table}_pkey"` };
}

/** Whether learner source may run a SERIALIZABLE transaction, whose COMMIT a probe then fails. */
export function mayRunSerializable(code: string): boolean {
  return /serializable/i.test(code);
}

/** PostgreSQL's answer to the COMMIT of the second of two SERIALIZABLE transactions that read what the other wrote. */
export const SERIALIZATION_FAILURE = { code: '40001', message: 'could not serialize access due to read/write dependencies among transactions' };

/** `rows` as the contended lock would have answered them. */
export function contendedRows(kind: ContendedAnswer, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  if (kind === 'filter') return [];
  // NOWAIT's contended answer is an error, raised before the statement runs (Contention.raisesNext).
  if (kind === 'error' || kind === 'serialization' || kind === 'unique') return rows;
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

/** How the statement `e` records would have been answered contended: the kind the run stamped on it, else read from its SQL. */
function contendedKindOf(e: TraceEvent | undefined): ContendedAnswer | null {
  const data = e?.data as { sql?: unknown; contendedKind?: ContendedAnswer } | undefined;
  return data?.contendedKind ?? contendedAnswer(String(data?.sql ?? ''));
}

/**
 * The sentence a verdict gives when `at`'s process ignored a contended answer before it (empty when
 * it did not): what the probe answered, and that the process acted all the same. `acted` says what
 * it did (sent the same e-mail, published the same rows).
 */
export function ignoredAnswerSentence(trace: readonly TraceEvent[], at: TraceEvent, acted: string): string {
  const ignored = trace.filter((e) => e.i < at.i && e.actor === at.actor && answerIgnored(e));
  if (ignored.length === 0) return '';
  const kinds = new Set(ignored.map(contendedKindOf));
  if (kinds.has('serialization')) {
    return `SERIALIZABLE did not count: replayed with the COMMIT failing as PostgreSQL fails the second of two such transactions (40001, could not serialize access), it ${acted} all the same. `;
  }
  if (kinds.has('unique')) {
    return `Its INSERT did not count as a claim: replayed with it failing as a second worker's fails once the first commits (23505, duplicate key), it ${acted} all the same. `;
  }
  const answers = [kinds.has('answer') ? 'false' : '', kinds.has('filter') ? 'no rows' : '', kinds.has('error') ? 'the error 55P03, lock not available' : ''].filter(Boolean).join(', or ');
  return `Its lock did not count: replayed with the answer a lock another process holds gives (${answers}), it ${acted} all the same. `;
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
  /** Whether the COMMITs of SERIALIZABLE transactions are contendable (the code may run one: mayRunSerializable). */
  serializable?: boolean;
  /** Whether plain INSERTs inside transactions are contendable (the code may catch their failure: mayCatchDuplicateKey). */
  uniqueInserts?: boolean;
}

/** What a run of `code` watches beside its locks: the contention options that depend on the code alone. */
export function watchedBy(code: string): Pick<ContentionOptions, 'serializable' | 'uniqueInserts'> {
  return { serializable: mayRunSerializable(code), uniqueInserts: mayCatchDuplicateKey(code) };
}

/** The key of a statement in `ContentionOptions.ignored`. */
export function ignoredKey(pid: string, sql: string): string {
  return `${pid}\n${sql}`;
}

/** A run's bookkeeping of contendable statements, per process. */
export class Contention {
  private readonly seqs = new Map<string, number>();
  /** `${pid}\n${text}` of plain INSERTs this probe run failed with 23505 (raisesDuplicate). */
  private readonly duplicated = new Set<string>();
  private readonly ignored: ReadonlySet<string>;

  constructor(private readonly options: ContentionOptions = {}) {
    this.ignored = new Set(options.ignored ?? []);
  }

  /** Whether COMMITs of SERIALIZABLE transactions are contendable in this run. */
  get watchesSerializable(): boolean {
    return this.options.serializable === true;
  }

  /** Whether plain INSERTs inside transactions are contendable in this run. */
  get watchesUniqueInserts(): boolean {
    return this.options.uniqueInserts === true;
  }

  /**
   * Whether `pid`'s plain INSERT `text` fails with 23505 in this probe run: the one contended, and
   * every later run of the same INSERT by the process (the other worker's row is there to stay: a
   * retry of the INSERT fails again, as it would on PostgreSQL).
   */
  raisesDuplicate(pid: string, text: string): boolean {
    if (this.duplicated.has(`${pid}\n${text}`)) return true;
    if (!this.raisesNext(pid)) return false;
    this.duplicated.add(`${pid}\n${text}`);
    return true;
  }

  /**
   * Whether `pid`'s next contendable statement, one whose contended answer is an error (NOWAIT),
   * is the one a probe run contends: then it is counted here, and fails instead of running.
   */
  raisesNext(pid: string): boolean {
    const seq = (this.seqs.get(pid) ?? 0) + 1;
    const point = this.options.contend;
    if (!point || point.pid !== pid || point.seq !== seq) return false;
    this.seqs.set(pid, seq);
    return true;
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
    data.contendedKind = kind;
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
    const kind = contendedKindOf(e);
    // A COMMIT or an INSERT is worth failing where the process went on to act after it.
    const differs = kind === 'serialization' || kind === 'unique' ? actsAfter(trace, e, kind === 'unique') : (kind === 'filter' || kind === 'error') ? rows.length > 0 : rows.some((r) => Object.values(r).some((v) => v === true));
    if (!differs) continue;
    seen.add(key);
    out.push({ point: { pid: e.actor, seq: data.contendable }, sql, at: e.i });
  }
  return out;
}

/** Whether `e`'s process called a provider or published after it, before its window closed. */
function actsAfter(trace: readonly TraceEvent[], e: TraceEvent, afterDuplicate = false): boolean {
  for (let i = e.i + 1; i < trace.length; i++) {
    const x = trace[i]!;
    if (x.actor === e.actor && (x.type === 'call' || x.type === 'publish')) return true;
    if (closesWindow(x, e.actor, afterDuplicate, afterDuplicate)) return false;
  }
  return false;
}

/** Whether `e` is part of what `pid` does that another process could see (its logs aside). */
function isConduct(e: TraceEvent, pid: string): boolean {
  return (e.actor === pid || e.target === pid) && e.type !== 'log';
}

/**
 * A write whose answer decides on its own (an INSERT … ON CONFLICT DO NOTHING or DO UPDATE … WHERE,
 * an UPDATE or DELETE, with RETURNING): a claim made after a refused lock or a failed COMMIT is a
 * decision of its own, not the refused answer ignored. An upsert whose DO UPDATE has no WHERE
 * returns its row either way and decides nothing.
 */
function decidesOnItsOwn(sql: string): boolean {
  const code = sqlCodeOnly(sql);
  if (!/\breturning\b/i.test(code) || !/^\s*(?:insert|update|delete|with)\b/i.test(code)) return false;
  const arm = /\bon\s+conflict\b[\s\S]*?\bdo\s+update\s+set\b([\s\S]*)$/i.exec(code)?.[1];
  return arm === undefined || /\bwhere\b/i.test(arm.split(/\breturning\b/i)[0]!) || /\bxmax\b/i.test(code);
}

/** A statement that takes a lock: what the process does after it rests on that lock, not on the contended one. */
const TAKES_LOCK = /\bpg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?\s*\(|\bfor\s+(?:no\s+key\s+)?update\b|\bfor\s+(?:key\s+)?share\b|^\s*lock\b/i;

/**
 * Where `pid` is done with what the statement decided: its next message, transaction, lock or
 * claim of its own (decidesOnItsOwn), sleep, end, crash or error. After a NOWAIT's error (`afterError`) the transaction is aborted,
 * and a new one is where the code goes on without the lock (a "best effort" pass): only a lock
 * closes it then.
 */
function closesWindow(e: TraceEvent, pid: string, afterError = false, afterDuplicate = false): boolean {
  if (e.type === 'receive') return e.target === pid;
  // After a 23505 the other worker's row is there (env.ts puts it ahead of the savepoint): a claim
  // or a lock of it that lets the process act took that worker's operation, so they end nothing.
  if (e.type === 'db' && e.actor === pid && afterDuplicate) return false;
  if (e.type === 'db' && e.actor === pid) {
    const sql = String((e.data as { sql?: unknown } | undefined)?.sql ?? '');
    return (!afterError && transactionBoundary(sql) === 'begin') || TAKES_LOCK.test(sqlCodeOnly(sql)) || decidesOnItsOwn(sql);
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

  /** Whether the contended answer is an error (NOWAIT): see closesWindow. */
  private readonly afterError: boolean;
  /** Whether it is a duplicate key (a plain INSERT's 23505): see closesWindow. */
  private readonly afterDuplicate: boolean;
  /**
   * Whether only acting counts (a SERIALIZABLE COMMIT's failure): a process that does the same
   * after it without calling a provider or publishing was not acting on that transaction anyway.
   */
  private readonly actOnly: boolean;

  constructor(
    original: readonly TraceEvent[],
    private readonly point: ContentionPoint,
    /** The probed statement's position in both traces: the runs are the same up to it. */
    private readonly at: number,
  ) {
    const kind = contendedKindOf(original[at]);
    this.afterError = kind === 'error' || kind === 'unique';
    this.afterDuplicate = kind === 'unique';
    this.actOnly = kind === 'serialization';
    this.expected = [];
    for (let i = at + 1; i < original.length && this.expected.length < WINDOW_EVENTS; i++) {
      const e = original[i];
      if (!isConduct(e, point.pid)) continue;
      this.expected.push(signature(e));
      if (closesWindow(e, point.pid, this.afterError, this.afterDuplicate)) break;
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
    const closes = closesWindow(e, this.point.pid, this.afterError, this.afterDuplicate);
    if (!this.actOnly && !this.differs && this.cursor === this.expected.length && this.expected.length > 0 && (closes || this.cursor >= WINDOW_EVENTS)) {
      this.obeyed = false;
      return;
    }
    if (closes || this.seen >= WINDOW_EVENTS) this.obeyed = (this.actOnly || this.differs) && !this.acted;
  }

  /** The probe run ended: undecided means its window ran to the end of the run. */
  finish(): boolean {
    if (this.obeyed === null) this.obeyed = (this.actOnly || this.differs || this.cursor < this.expected.length) && !this.acted;
    return this.obeyed;
  }
}

function signature(e: TraceEvent): string {
  return `${e.type}\n${e.text}`;
}
