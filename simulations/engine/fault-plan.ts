/**
 * The fault plan of one run: the one place where faults are matched against what happens and
 * marked as fired. Crashes before or after the nth step of a kind (optionally narrowed to
 * statements that start with some SQL), crashes at a scheduler step, lost requests, lost and slow
 * responses of the nth call of a kind, items of a batch refused, statements that fail, and
 * duplicate deliveries of a message (from a step, or at a moment after its first delivery). Each fault fires at
 * most once, whatever the incarnation; the plan records the trace event it took effect at.
 */
import { sqlStartsWith } from './faults';
import { ordinal, sqlCrashWhen } from './narration';
import type { CallKind, Fault, StepKind } from './types';

type DuplicateDelivery = Extract<Fault, { kind: 'duplicate-delivery' }>;

/** A process incarnation's counts, for `crash after/before the nth X` faults. A restart starts them afresh. */
export class ProcessCounters {
  /** Executed steps by kind. */
  readonly after = new Map<string, number>();
  /** Chosen steps by kind. */
  readonly before = new Map<string, number>();
  /** Per crash fault with `sql`: matching statements this incarnation ran (after) or was about to run (before). */
  readonly sql = new Map<Fault, number>();
}

/** The faults that hit one provider call. */
export interface CallFaults {
  lostRequest: boolean;
  lostResponse: boolean;
  slow?: { ms: number };
  /** Indices of the batch's items the provider refuses with 429. */
  refuseItems?: number[];
  /** Record `eventIndex` as where this call's faults of `kind` took effect. */
  took(kind: Fault['kind'], eventIndex: number): void;
}

const NO_CALL_FAULTS: CallFaults = { lostRequest: false, lostResponse: false, took: () => {} };

export class FaultPlan {
  /** The trace event each fault took effect at; a fault in it has fired. */
  private readonly tookEffect = new Map<Fault, number>();
  /** Per message, the duplicate-delivery faults still to apply. */
  private readonly duplicates = new Map<string, DuplicateDelivery[]>();
  private readonly callCounts = new Map<CallKind, number>();
  private readonly hasCallFaults: boolean;
  /** Per fail-statement fault, the statements of its process it has counted so far. */
  private readonly statementCounts = new Map<Fault, number>();
  private readonly statementFaults: Extract<Fault, { kind: 'fail-statement' }>[];

  constructor(readonly faults: readonly Fault[]) {
    for (const f of faults) {
      if (f.kind === 'duplicate-delivery') this.duplicates.set(f.message, [...(this.duplicates.get(f.message) ?? []), f]);
    }
    this.hasCallFaults = faults.some((f) => 'call' in f);
    this.statementFaults = faults.filter((f): f is Extract<Fault, { kind: 'fail-statement' }> => f.kind === 'fail-statement');
  }

  /**
   * Count statement `sql` of `pid` (transaction control is never counted: `control` says it is),
   * and say which fail-statement fault makes it fail, if any.
   */
  failsStatement(pid: string, sql: string, control: boolean): Fault | undefined {
    if (this.statementFaults.length === 0 || control) return undefined;
    let hit: Fault | undefined;
    for (const f of this.statementFaults) {
      if (f.process !== pid || this.tookEffect.has(f) || (f.sql !== undefined && !sqlStartsWith(sql, f.sql))) continue;
      const n = (this.statementCounts.get(f) ?? 0) + 1;
      this.statementCounts.set(f, n);
      if (!hit && (f.nth ?? 1) === n) hit = f;
    }
    return hit;
  }

  /** Record that `fault` took effect at trace event `eventIndex`. */
  fired(fault: Fault, eventIndex: number): void {
    this.tookEffect.set(fault, eventIndex);
  }

  /** For each fault of the plan, in order, the event it took effect at, or null when it never did. */
  events(): (number | null)[] {
    return this.faults.map((f) => this.tookEffect.get(f) ?? null);
  }

  /**
   * Count a step of `pid` of `kind` on `side` of its execution, and say which crash fault it fires
   * and how the narration puts the moment ("right after its 2nd db step (…)"), if any.
   */
  crashAt(side: 'before' | 'after', counters: ProcessCounters, pid: string, kind: StepKind, label: string, sql: string | undefined): { fault: Fault; when: string } | undefined {
    const counts = side === 'before' ? counters.before : counters.after;
    const n = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, n);
    const moment = side === 'before' ? 'just before' : 'right after';
    const fault = this.faults.find(
      (f) => f.kind === 'crash' && side in f && !('atStep' in f) && f.sql === undefined && f.process === pid && (f as unknown as Record<string, unknown>)[side] === kind && (f.nth ?? 1) === n && !this.tookEffect.has(f),
    );
    if (fault) return { fault, when: `${moment} its ${ordinal(n)} ${kind} step (${label})` };
    const bySql = this.sqlCrash(counters, pid, kind, sql, side);
    return bySql && { fault: bySql.fault, when: `${moment} its ${bySql.when}` };
  }

  /**
   * Count the step for every unfired crash fault with `sql` it matches, and fire the first whose
   * `nth` it reaches. Kept apart from the per-kind counts so plans without `sql` run as they would.
   */
  private sqlCrash(counters: ProcessCounters, pid: string, kind: StepKind, sql: string | undefined, side: 'after' | 'before'): { when: string; fault: Fault } | undefined {
    if (sql === undefined) return undefined;
    let hit: { when: string; fault: Fault } | undefined;
    for (const f of this.faults) {
      if (f.kind !== 'crash' || 'atStep' in f || f.sql === undefined || f.process !== pid || this.tookEffect.has(f)) continue;
      const at = side === 'after' ? ('after' in f ? f.after : undefined) : 'before' in f ? f.before : undefined;
      if (at !== kind || !sqlStartsWith(sql, f.sql)) continue;
      const n = (counters.sql.get(f) ?? 0) + 1;
      counters.sql.set(f, n);
      if (!hit && (f.nth ?? 1) === n) hit = { when: sqlCrashWhen(n, f.sql), fault: f };
    }
    return hit;
  }

  /** Crash faults "at step N" not yet fired, for `stepsRun` = N. */
  dueAtStep(stepsRun: number): Extract<Fault, { atStep: number; kind: 'crash' }>[] {
    const due: Extract<Fault, { atStep: number; kind: 'crash' }>[] = [];
    for (const f of this.faults) {
      if (f.kind === 'crash' && 'atStep' in f && f.atStep === stepsRun && !this.tookEffect.has(f)) due.push(f);
    }
    return due;
  }

  /** Count a call of `kind` as it reaches the provider, and say what its faults do to it. */
  forCall(kind: CallKind): CallFaults {
    const nth = (this.callCounts.get(kind) ?? 0) + 1;
    this.callCounts.set(kind, nth);
    if (!this.hasCallFaults) return NO_CALL_FAULTS;
    const faults = this.faults.filter((f) => 'call' in f && f.call === kind && (f.nth ?? 1) === nth);
    if (faults.length === 0) return NO_CALL_FAULTS;
    return {
      lostRequest: faults.some((f) => f.kind === 'lose-request'),
      lostResponse: faults.some((f) => f.kind === 'lose-response'),
      slow: faults.find((f) => f.kind === 'slow-response') as { ms: number } | undefined,
      refuseItems: faults.flatMap((f) => (f.kind === 'refuse-item' ? [f.item] : [])),
      took: (k, eventIndex) => {
        for (const f of faults) if (f.kind === k) this.tookEffect.set(f, eventIndex);
      },
    };
  }

  /**
   * The duplicate-delivery fault of message `id` due by step `stepsRun`, `sinceFirstMs` after the
   * message's first delivery (null before it), if any is left. With `settled`, the message was
   * acknowledged: only a fault placed at a moment (`afterMs`) brings it back.
   */
  duplicateDue(id: string, stepsRun: number, sinceFirstMs: number | null, settled = false): DuplicateDelivery | undefined {
    const left = this.duplicates.get(id);
    if (!left?.length) return undefined;
    return left.find(
      (f) =>
        (f.atStep === undefined || stepsRun >= f.atStep) &&
        (f.afterMs === undefined ? !settled : sinceFirstMs !== null && sinceFirstMs >= f.afterMs),
    );
  }

  /** The moments (ms after its first delivery) at which duplicates of message `id` are still to come. */
  duplicateMoments(id: string): number[] {
    return (this.duplicates.get(id) ?? []).flatMap((f) => (f.afterMs === undefined ? [] : [f.afterMs]));
  }

  /**
   * Whether a copy of message `id`, acknowledged, is still to come at a moment: then consumers wait
   * for it. One that also waits for a step not reached by `stepsRun` never comes (nothing else runs).
   */
  lateCopyPending(id: string, stepsRun: number): boolean {
    return (this.duplicates.get(id) ?? []).some((f) => f.afterMs !== undefined && (f.atStep === undefined || stepsRun >= f.atStep));
  }

  /** Take `fault` off the duplicates still to apply. */
  useDuplicate(id: string, fault: DuplicateDelivery): void {
    const left = this.duplicates.get(id)!;
    left.splice(left.indexOf(fault), 1);
  }
}
