/**
 * Fault plans as data: a validator for plans that come from outside (a CLI file, a share link)
 * and one sentence per fault for narration. A plan that fails validation is refused whole, with
 * the position and the reason, never half-applied.
 */
import { CALL_KINDS } from '../providers/registry';
import type { Fault, StepKind } from './types';

const STEP_KINDS: readonly StepKind[] = ['db', 'queue.receive', 'queue.ack', 'queue.publish', ...CALL_KINDS, 'sleep'];

/** Most faults one plan may hold. */
export const MAX_FAULTS = 32;

/** A plan that is not a valid list of faults. */
export class FaultPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultPlanError';
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nth(v: unknown, where: string, field = 'nth'): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 10_000) throw new FaultPlanError(`${where}: ${field} must be a whole number from 1 to 10000`);
  return v;
}

function name(v: unknown, where: string, field: string): string {
  if (typeof v !== 'string' || !/^[a-z][a-z0-9_-]{0,39}$/.test(v)) throw new FaultPlanError(`${where}: ${field} must be a name like "worker-1" or "evt_1"`);
  return v;
}

function oneOf<T extends string>(v: unknown, options: readonly T[], where: string, field: string): T {
  if (typeof v !== 'string' || !options.includes(v as T)) throw new FaultPlanError(`${where}: ${field} must be one of ${options.join(', ')}`);
  return v as T;
}

/** Longest `sql` prefix a crash fault may carry. */
export const MAX_SQL_PREFIX_LENGTH = 200;

/** A statement as a crash's `sql` filter compares it: leading whitespace dropped, whitespace runs as one space, lower case. */
export function normalizeSql(text: string): string {
  return text.replace(/\s+/g, ' ').trimStart().toLowerCase();
}

/** Whether the statement `text` starts with the crash filter `prefix` (both normalized). */
export function sqlStartsWith(text: string, prefix: string): boolean {
  return normalizeSql(text).startsWith(normalizeSql(prefix));
}

function sqlPrefix(v: unknown, kind: StepKind, where: string): { sql?: string } {
  if (v === undefined) return {};
  if (kind !== 'db') throw new FaultPlanError(`${where}: sql only narrows a crash at a "db" step, or a failed statement`);
  if (typeof v !== 'string' || !v.trim() || v.length > MAX_SQL_PREFIX_LENGTH) {
    throw new FaultPlanError(`${where}: sql must be the start of a statement, 1 to ${MAX_SQL_PREFIX_LENGTH} characters, like "INSERT INTO orders"`);
  }
  return { sql: v };
}

function atStep(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 100_000) throw new FaultPlanError(`${where}: atStep must be a whole number from 0 to 100000`);
  return v;
}

function afterMs(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 86_400_000) throw new FaultPlanError(`${where}: afterMs must be a whole number of milliseconds up to a day`);
  return v;
}

/** Check that `value` is a fault plan; returns a clean copy with only known fields. */
export function parseFaultPlan(value: unknown): Fault[] {
  if (!Array.isArray(value)) throw new FaultPlanError('a fault plan is a JSON array of faults');
  if (value.length > MAX_FAULTS) throw new FaultPlanError(`a fault plan holds at most ${MAX_FAULTS} faults (this one has ${value.length})`);
  return value.map((f, i): Fault => {
    const where = `fault ${i + 1}`;
    if (!isObject(f)) throw new FaultPlanError(`${where}: must be an object with a "kind"`);
    switch (f.kind) {
      case 'crash': {
        const process = name(f.process, where, 'process');
        if (f.after !== undefined) {
          const after = oneOf(f.after, STEP_KINDS, where, 'after');
          return { kind: 'crash', process, after, nth: nth(f.nth, where), ...sqlPrefix(f.sql, after, where) };
        }
        if (f.before !== undefined) {
          const before = oneOf(f.before, STEP_KINDS, where, 'before');
          return { kind: 'crash', process, before, nth: nth(f.nth, where), ...sqlPrefix(f.sql, before, where) };
        }
        if (f.atStep !== undefined) {
          if (f.sql !== undefined) throw new FaultPlanError(`${where}: sql only narrows a crash at a "db" step, not one at a fixed step`);
          return { kind: 'crash', process, atStep: atStep(f.atStep, where) };
        }
        throw new FaultPlanError(`${where}: a crash needs "after", "before" or "atStep"`);
      }
      case 'lose-response':
      case 'lose-request':
        return { kind: f.kind, call: oneOf(f.call, CALL_KINDS, where, 'call'), nth: nth(f.nth, where) };
      case 'slow-response': {
        if (typeof f.ms !== 'number' || !Number.isInteger(f.ms) || f.ms < 0 || f.ms > 86_400_000) throw new FaultPlanError(`${where}: ms must be a whole number of milliseconds up to a day`);
        return { kind: 'slow-response', call: oneOf(f.call, CALL_KINDS, where, 'call'), nth: nth(f.nth, where), ms: f.ms };
      }
      case 'refuse-item': {
        if (typeof f.item !== 'number' || !Number.isInteger(f.item) || f.item < 0 || f.item > 10_000) throw new FaultPlanError(`${where}: item must be an index from 0 to 10000`);
        return { kind: 'refuse-item', call: oneOf(f.call, CALL_KINDS, where, 'call'), nth: nth(f.nth, where), item: f.item };
      }
      case 'fail-statement': {
        const process = name(f.process, where, 'process');
        return { kind: 'fail-statement', process, nth: nth(f.nth, where), ...sqlPrefix(f.sql, 'db', where) };
      }
      case 'duplicate-delivery': {
        const message = name(f.message, where, 'message');
        return {
          kind: 'duplicate-delivery',
          message,
          ...(f.atStep === undefined ? {} : { atStep: atStep(f.atStep, where) }),
          ...(f.afterMs === undefined ? {} : { afterMs: afterMs(f.afterMs, where) }),
        };
      }
      default:
        throw new FaultPlanError(`${where}: unknown kind ${String(JSON.stringify(f.kind)).slice(0, 40)}; kinds are crash, lose-response, lose-request, slow-response, refuse-item, fail-statement, duplicate-delivery`);
    }
  });
}

function ordinalWord(n = 1): string {
  return ['first', 'second', 'third', 'fourth', 'fifth'][n - 1] ?? `${n}th`;
}

function matching(sql: string | undefined): string {
  return sql === undefined ? '' : ` matching ${sql.replace(/\s+/g, ' ').trim()}`;
}

/**
 * A fault as a plan beside a run shows it, given the event (numbered as the page counts, from 1) it
 * landed on, or null when it never happened. One placed by scheduler step reads by its event once
 * it landed ("crash worker-2 at event 4"): beside "event 4 of 18" a scheduler step reads as internal.
 */
export function describeFaultAt(f: Fault, event: number | null): string {
  if (event === null) return describeFault(f);
  if (f.kind === 'crash' && 'atStep' in f) return `crash ${f.process} at event ${event}`;
  if (f.kind === 'duplicate-delivery' && f.afterMs !== undefined) return `${describeFault(f)} (event ${event})`;
  if (f.kind === 'duplicate-delivery' && f.atStep !== undefined) return `deliver ${f.message} to a second consumer while the first holds it, from event ${event} on`;
  return `${describeFault(f)} (event ${event})`;
}

/** One sentence for a fault. */
export function describeFault(f: Fault): string {
  switch (f.kind) {
    case 'crash':
      if ('after' in f) return `crash ${f.process} right after its ${ordinalWord(f.nth)} ${f.after} step${matching(f.sql)}`;
      if ('before' in f) return `crash ${f.process} just before its ${ordinalWord(f.nth)} ${f.before} step${matching(f.sql)}`;
      return `crash ${f.process} at scheduler step ${f.atStep}`;
    case 'lose-response':
      return `lose the response of the ${ordinalWord(f.nth)} ${f.call}`;
    case 'lose-request':
      return `lose the request of the ${ordinalWord(f.nth)} ${f.call}`;
    case 'slow-response':
      return `the ${ordinalWord(f.nth)} ${f.call} answers after ${f.ms / 1000} s`;
    case 'refuse-item':
      return `the ${ordinalWord(f.nth)} ${f.call} refuses its item ${f.item} with 429`;
    case 'fail-statement':
      return `fail the ${ordinalWord(f.nth)} statement of ${f.process}${matching(f.sql)} with a deadlock (40P01)`;
    case 'duplicate-delivery':
      if (f.afterMs !== undefined) {
        return `deliver ${f.message} again ${f.afterMs / 1000} s after its first delivery, to a second consumer while the first holds it or as a copy after its ack${f.atStep === undefined ? '' : `, not before scheduler step ${f.atStep}`}`;
      }
      return `deliver ${f.message} to a second consumer while the first holds it${f.atStep === undefined ? '' : `, from scheduler step ${f.atStep} on`}`;
  }
}
